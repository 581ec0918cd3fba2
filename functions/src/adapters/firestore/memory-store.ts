import { createHash } from "node:crypto";
import {
  type DocumentReference,
  type DocumentSnapshot,
  FieldValue,
  type Firestore,
  VectorValue,
} from "@google-cloud/firestore";
import { z } from "zod";
import { InvalidInputError, StorageError } from "../../domain/errors.js";
import {
  DELETE_BELOW_SCORE,
  type Memory,
  type MemoryId,
  MemoryIdSchema,
  type MemoryMatch,
  MemorySchema,
  SCORE_STEP,
} from "../../memory/memory.js";
import { cosineDistanceThreshold, similarityFromCosineDistance } from "../../memory/similarity.js";
import type {
  IntrospectionOutcome,
  IntrospectionWrite,
  MemorySearch,
  MemoryStore,
} from "../../memory/store.js";
import { EMBEDDING_DIMENSIONS } from "../../model/port.js";
import { checked } from "./codec.js";
import { grpcCode, NOT_FOUND, toStorageError } from "./errors.js";
import type { VectorIndex } from "./indexes.js";
import { EXPIRE_AT_FIELD, markerExpiry } from "./paths.js";

/**
 * Layout, next to the documents in ./paths.ts:
 *   memories/{memoryId}                      one Memory; `embedding` is a Firestore vector
 *   memorySessions/{sha256(sessionId)}       once-only marker and audit record of one
 *                                            introspected agent session
 *
 * The vector index on memories (MEMORY_VECTOR_INDEX) is declared in terraform/firestore.tf;
 * the emulator needs none.
 */
export const MEMORIES = "memories";
/** What `search` needs in production: the scope and embedding-space equality filters, then the vector. */
export const MEMORY_VECTOR_INDEX = {
  collectionGroup: MEMORIES,
  prefixFields: ["scope", "embeddingSpace"],
  vectorField: "embedding",
  dimension: EMBEDDING_DIMENSIONS,
  usedBy: "FirestoreMemoryStore.search (memory recall)",
} as const satisfies VectorIndex;
export const MEMORY_SESSIONS = "memorySessions";
/** Set by findNearest on each hit; never stored. */
const DISTANCE_FIELD = "searchDistance";
/** findNearest's own cap. */
const MAX_NEAREST = 1_000;

const SessionRecordSchema = z.object({
  sessionId: z.string(),
  investigationId: z.string(),
  scope: z.string(),
  model: z.string(),
  appliedAt: z.iso.datetime(),
  created: z.array(z.string()),
  raised: z.array(z.string()),
  lowered: z.array(z.string()),
  deleted: z.array(z.string()),
  missing: z.array(z.string()),
});

export interface FirestoreMemoryStoreOptions {
  /** Attempts per transaction before contention surfaces as a retryable StorageError. */
  maxTransactionAttempts?: number;
}

export class FirestoreMemoryStore implements MemoryStore {
  private readonly maxAttempts: number;

  constructor(
    private readonly db: Firestore,
    options: FirestoreMemoryStoreOptions = {},
  ) {
    this.maxAttempts = options.maxTransactionAttempts ?? 5;
  }

  async search(query: MemorySearch): Promise<MemoryMatch[]> {
    if (query.vector.length !== EMBEDDING_DIMENSIONS) {
      throw new InvalidInputError(
        `query vector has ${query.vector.length} dimensions; memories are indexed at ${EMBEDDING_DIMENSIONS}`,
      );
    }
    if (query.limit < 1) return [];
    const [scopeField, spaceField] = MEMORY_VECTOR_INDEX.prefixFields;
    // Equality prefixes, so scope and embedding space are filtered before the nearest K.
    const snapshot = await this.call(`search memories of ${query.scope}`, () =>
      this.db
        .collection(MEMORIES)
        .where(scopeField, "==", query.scope)
        .where(spaceField, "==", query.embeddingSpace)
        .findNearest({
          vectorField: MEMORY_VECTOR_INDEX.vectorField,
          queryVector: query.vector,
          limit: Math.min(query.limit, MAX_NEAREST),
          distanceMeasure: "COSINE",
          // The port speaks similarity; Firestore keeps distance ≤ threshold (see similarity.ts).
          distanceThreshold: cosineDistanceThreshold(query.minSimilarity),
          distanceResultField: DISTANCE_FIELD,
        })
        .get(),
    );
    return snapshot.docs.map((doc) => {
      const distance: unknown = doc.get(DISTANCE_FIELD);
      if (typeof distance !== "number") {
        throw new StorageError(`findNearest returned ${doc.ref.path} without its distance`, false);
      }
      return { memory: decodeMemory(doc), similarity: similarityFromCosineDistance(distance) };
    });
  }

  /**
   * Per-document increments rather than a transaction: recall runs at the start of every
   * sub-agent session, and popular memories would otherwise make those sessions contend.
   * update() fails on a missing document, so a memory deleted meanwhile is not recreated.
   */
  async touch(ids: readonly MemoryId[], at: Date): Promise<void> {
    const unique = [...new Set(ids)].filter((id) => MemoryIdSchema.safeParse(id).success);
    const results = await Promise.allSettled(
      unique.map((id) =>
        this.ref(id).update({ lastUsedAt: at.toISOString(), useCount: FieldValue.increment(1) }),
      ),
    );
    const failures = results.filter(
      (r): r is PromiseRejectedResult => r.status === "rejected" && grpcCode(r.reason) !== NOT_FOUND,
    );
    if (failures[0]) throw toStorageError(failures[0].reason, `touch ${failures.length} memories`);
  }

  async get(id: string): Promise<Memory | undefined> {
    if (!MemoryIdSchema.safeParse(id).success) return undefined;
    const snapshot = await this.call(`get memory ${id}`, () => this.ref(id).get());
    return snapshot.exists ? decodeMemory(snapshot) : undefined;
  }

  async getMany(ids: readonly string[]): Promise<Memory[]> {
    const valid = [...new Set(ids)].filter((id) => MemoryIdSchema.safeParse(id).success);
    if (valid.length === 0) return [];
    const snapshots = await this.call(`get ${valid.length} memories`, () =>
      this.db.getAll(...valid.map((id) => this.ref(id))),
    );
    return snapshots.filter((s) => s.exists).map(decodeMemory);
  }

  async list(options: { limit: number }): Promise<Memory[]> {
    if (options.limit < 1) return [];
    // One orderBy on one field: served by Firestore's automatic single-field index.
    const snapshot = await this.call("list memories", () =>
      this.db.collection(MEMORIES).orderBy("score", "desc").limit(options.limit).get(),
    );
    return snapshot.docs.map(decodeMemory);
  }

  async delete(id: string): Promise<boolean> {
    if (!MemoryIdSchema.safeParse(id).success) return false;
    const ref = this.ref(id);
    return this.call(`delete memory ${id}`, () =>
      this.db.runTransaction(async (tx) => {
        const snapshot = await tx.get(ref);
        if (snapshot.exists) tx.delete(ref);
        return snapshot.exists;
      }),
    );
  }

  async wasIntrospected(sessionId: string): Promise<boolean> {
    const snapshot = await this.call(`get session marker ${sessionId}`, () =>
      this.sessionRef(sessionId).get(),
    );
    return snapshot.exists;
  }

  /**
   * The marker, the new memories, the score changes and the deletions commit together or
   * not at all. A redelivered session finds the marker inside the transaction and changes
   * nothing; two deliveries running at once contend on the marker, and Firestore makes the
   * loser retry, when it finds the marker too.
   */
  async applyIntrospection(write: IntrospectionWrite): Promise<IntrospectionOutcome> {
    const input = validateWrite(write);
    const markerRef = this.sessionRef(input.sessionId);
    const scoredIds = [...input.helpful, ...input.harmful];
    const scoredRefs = scoredIds.map((id) => this.ref(id));
    const createdRefs = input.created.map((c) => this.ref(c.id));
    const harmful = new Set(input.harmful);
    const at = input.at.toISOString();
    return this.call(`apply introspection of session ${input.sessionId}`, () =>
      this.db.runTransaction(
        async (tx) => {
          const [marker, ...rest] = await tx.getAll(markerRef, ...scoredRefs, ...createdRefs);
          if (marker?.exists) return emptyOutcome(false);
          const scored = rest.slice(0, scoredRefs.length);
          const existing = rest.slice(scoredRefs.length);
          const outcome = emptyOutcome(true);
          scored.forEach((snapshot, i) => {
            const id = scoredIds[i] as MemoryId;
            if (!snapshot.exists) {
              outcome.missing.push(id);
              return;
            }
            const score = currentScore(snapshot);
            const next = score + (harmful.has(id) ? -SCORE_STEP : SCORE_STEP);
            (harmful.has(id) ? outcome.lowered : outcome.raised).push(id);
            if (next < DELETE_BELOW_SCORE) {
              tx.delete(snapshot.ref);
              outcome.deleted.push(id);
            } else {
              tx.update(snapshot.ref, { score: next, updatedAt: at });
            }
          });
          input.created.forEach((created, i) => {
            if (existing[i]?.exists) return;
            const memory = checked(
              MemorySchema,
              {
                id: created.id,
                scope: input.scope,
                fact: created.fact,
                embedding: created.embedding,
                embeddingSpace: input.embeddingSpace,
                score: 0,
                useCount: 0,
                source: { sessionId: input.sessionId, investigationId: input.investigationId },
                createdAt: at,
                updatedAt: at,
              },
              "memory",
            );
            tx.create(this.ref(created.id), encodeMemory(memory));
            outcome.created.push(created.id);
          });
          tx.create(markerRef, {
            [EXPIRE_AT_FIELD]: markerExpiry(input.at),
            sessionId: input.sessionId,
            investigationId: input.investigationId,
            scope: input.scope,
            model: input.model,
            appliedAt: at,
            created: outcome.created,
            raised: outcome.raised,
            lowered: outcome.lowered,
            deleted: outcome.deleted,
            missing: outcome.missing,
          } satisfies z.infer<typeof SessionRecordSchema> & { [EXPIRE_AT_FIELD]: Date });
          return outcome;
        },
        { maxAttempts: this.maxAttempts },
      ),
    );
  }

  private ref(id: string): DocumentReference {
    return this.db.collection(MEMORIES).doc(id);
  }

  /** Session ids are free text that may hold "/"; a digest is always a valid document id. */
  private sessionRef(sessionId: string): DocumentReference {
    return this.db.collection(MEMORY_SESSIONS).doc(createHash("sha256").update(sessionId).digest("hex"));
  }

  private async call<T>(what: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw toStorageError(error, what);
    }
  }
}

// Fresh arrays per call: the outcome is filled in place, and a transaction body may run twice.
function emptyOutcome(applied: boolean): IntrospectionOutcome {
  return { applied, created: [], raised: [], lowered: [], deleted: [], missing: [] };
}

function validateWrite(write: IntrospectionWrite): IntrospectionWrite {
  const ids = [...write.helpful, ...write.harmful, ...write.created.map((c) => c.id)];
  const bad = ids.find((id) => !MemoryIdSchema.safeParse(id).success);
  if (bad !== undefined) throw new InvalidInputError(`refusing to write memory id ${JSON.stringify(bad)}`);
  if (new Set([...write.helpful, ...write.harmful]).size !== write.helpful.length + write.harmful.length) {
    throw new InvalidInputError("a memory may be judged once per session, helpful or harmful");
  }
  if (write.created.some((c) => c.embedding.length !== EMBEDDING_DIMENSIONS)) {
    throw new InvalidInputError(`new memories need a ${EMBEDDING_DIMENSIONS}-d embedding`);
  }
  return write;
}

function currentScore(snapshot: DocumentSnapshot): number {
  const score: unknown = snapshot.get("score");
  if (typeof score === "number" && Number.isInteger(score)) return score;
  throw new StorageError(`stored memory ${snapshot.ref.path} is corrupt: score is not an integer`, false);
}

function encodeMemory(memory: Memory): Record<string, unknown> {
  // A plain array would be stored as an array, which findNearest does not search.
  return { ...memory, embedding: FieldValue.vector(memory.embedding) };
}

function decodeMemory(snapshot: DocumentSnapshot): Memory {
  const { [DISTANCE_FIELD]: _distance, ...data } = snapshot.data() ?? {};
  const embedding: unknown = data.embedding;
  const parsed = MemorySchema.safeParse({
    ...data,
    embedding: embedding instanceof VectorValue ? embedding.toArray() : embedding,
  });
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");
  throw new StorageError(`stored memory ${snapshot.ref.path} is corrupt: ${issues}`, false);
}

import type { DocumentReference, Firestore } from "@google-cloud/firestore";
import { z } from "zod";
import { ConflictError, StorageError } from "../../domain/errors.js";
import { InvestigationSchema } from "../../domain/investigation.js";
import { StepIdSchema } from "../../domain/plan.js";
import {
  type StepHistory,
  type StepHistoryDraft,
  StepHistorySchema,
  type StepHistoryStore,
} from "../../ports/step-history-store.js";
import { checked } from "./codec.js";
import { toStorageError } from "./errors.js";
import { COLLECTIONS } from "./paths.js";

/**
 * Layout, next to the documents in ./paths.ts:
 *   investigations/{id}/histories/{stepId}                      header: counters, revision
 *   investigations/{id}/histories/{stepId}/chunks/{rev}-{n}     the messages and tool calls
 *
 * A history near a context window is megabytes of JSON, past Firestore's 1 MiB document
 * limit, so the payload is a JSON string cut into chunks. Chunk ids carry the revision and
 * the header is rewritten in the same transaction, so a reader never mixes two revisions.
 */
const HISTORIES = "histories";
const CHUNKS = "chunks";
/** Characters per chunk: at most 4 bytes each in UTF-8, so under the 1 MiB document limit. */
const CHUNK_CHARS = 200_000;

const PayloadSchema = StepHistorySchema.pick({ messages: true, toolCalls: true, toolIocs: true });
type Payload = z.infer<typeof PayloadSchema>;
const HeaderSchema = StepHistorySchema.omit({ messages: true, toolCalls: true, toolIocs: true }).extend({
  chunks: z.number().int().min(0),
  bytes: z.number().int().min(0),
  messageCount: z.number().int().min(0),
});
type Header = z.infer<typeof HeaderSchema>;

const InvestigationIdSchema = InvestigationSchema.shape.id;

export interface FirestoreStepHistoryStoreOptions {
  now?: () => Date;
}

export class FirestoreStepHistoryStore implements StepHistoryStore {
  private readonly now: () => Date;

  constructor(
    private readonly db: Firestore,
    options: FirestoreStepHistoryStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async get(investigationId: string, stepId: string): Promise<StepHistory | undefined> {
    const ref = this.headerRef(investigationId, stepId);
    return this.call(`get history ${ref.path}`, () =>
      this.db.runTransaction(
        async (tx) => {
          const snapshot = await tx.get(ref);
          if (!snapshot.exists) return undefined;
          const header = decodeHeader(snapshot.data(), ref.path);
          const refs = chunkIds(header).map((id) => ref.collection(CHUNKS).doc(id));
          const chunks = refs.length > 0 ? await tx.getAll(...refs) : [];
          const text = chunks
            .map((chunk) => {
              const data = chunk.data();
              if (!chunk.exists || typeof data?.text !== "string") {
                throw new StorageError(`stored history ${chunk.ref.path} is missing or corrupt`, false);
              }
              return data.text;
            })
            .join("");
          return assemble(header, parsePayload(text, ref.path), ref.path);
        },
        { readOnly: true },
      ),
    );
  }

  async put(
    investigationId: string,
    history: StepHistoryDraft,
    expectedRevision: number,
  ): Promise<StepHistory> {
    const ref = this.headerRef(investigationId, history.stepId);
    const stored = checked(
      StepHistorySchema,
      { ...history, revision: expectedRevision + 1, updatedAt: this.now().toISOString() },
      "step history",
    );
    const payload: Payload = {
      messages: stored.messages,
      toolCalls: stored.toolCalls,
      toolIocs: stored.toolIocs,
    };
    const text = JSON.stringify(payload);
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += CHUNK_CHARS) pieces.push(text.slice(i, i + CHUNK_CHARS));
    const { messages: _m, toolCalls: _t, toolIocs: _i, ...rest } = stored;
    const header: Header = {
      ...rest,
      chunks: pieces.length,
      bytes: Buffer.byteLength(text, "utf8"),
      messageCount: stored.messages.length,
    };
    await this.call(`put history ${ref.path}`, () =>
      this.db.runTransaction(async (tx) => {
        const snapshot = await tx.get(ref);
        const previous = snapshot.exists ? decodeHeader(snapshot.data(), ref.path) : undefined;
        const current = previous?.revision ?? 0;
        if (current !== expectedRevision) {
          throw new ConflictError(
            `history ${ref.path} is at revision ${current}, not ${expectedRevision}: another run or the compressor wrote it`,
          );
        }
        tx.set(ref, header);
        chunkIds(header).forEach((id, n) => {
          tx.set(ref.collection(CHUNKS).doc(id), { text: pieces[n] });
        });
        if (previous) for (const id of chunkIds(previous)) tx.delete(ref.collection(CHUNKS).doc(id));
      }),
    );
    return stored;
  }

  private headerRef(investigationId: string, stepId: string): DocumentReference {
    checked(InvestigationIdSchema, investigationId, "investigation id");
    checked(StepIdSchema, stepId, "step id");
    return this.db
      .collection(COLLECTIONS.investigations)
      .doc(investigationId)
      .collection(HISTORIES)
      .doc(stepId);
  }

  private async call<T>(what: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw toStorageError(error, what);
    }
  }
}

function chunkIds(header: Pick<Header, "revision" | "chunks">): string[] {
  const rev = String(header.revision).padStart(6, "0");
  return Array.from({ length: header.chunks }, (_, n) => `${rev}-${String(n).padStart(4, "0")}`);
}

function decodeHeader(data: unknown, path: string): Header {
  const parsed = HeaderSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  throw new StorageError(`stored history ${path} is corrupt: ${parsed.error.issues[0]?.message}`, false);
}

function parsePayload(text: string, path: string): Payload {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new StorageError(`stored history ${path} is corrupt: its chunks are not JSON`, false, error);
  }
  const parsed = PayloadSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new StorageError(`stored history ${path} is corrupt: ${parsed.error.issues[0]?.message}`, false);
}

function assemble(header: Header, payload: Payload, path: string): StepHistory {
  const { chunks: _c, bytes: _b, messageCount: _n, ...rest } = header;
  const parsed = StepHistorySchema.safeParse({ ...rest, ...payload });
  if (parsed.success) return parsed.data;
  throw new StorageError(`stored history ${path} is corrupt: ${parsed.error.issues[0]?.message}`, false);
}

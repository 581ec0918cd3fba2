import { FieldValue, type Firestore, VectorValue } from "@google-cloud/firestore";
import { z } from "zod";
import { InvalidInputError } from "../../domain/errors.js";
import { EMBEDDING_DIMENSIONS } from "../../model/port.js";
import {
  type FindingEmbeddingMeta,
  FindingEmbeddingMetaSchema,
  type FindingEmbeddings,
  type SimilarFinding,
} from "../../tools/related-findings.js";
import { toStorageError } from "./errors.js";
import type { VectorIndex } from "./indexes.js";

export const FINDING_EMBEDDINGS_COLLECTION = "findingEmbeddings";

/**
 * The vector index `nearest` needs in production (the emulator runs without one): the
 * `space` equality pre-filter plus the 768-d `embedding` vector, flat, on the
 * findingEmbeddings collection group.
 */
export const FINDING_EMBEDDING_INDEX = {
  collectionGroup: FINDING_EMBEDDINGS_COLLECTION,
  prefixFields: ["space"],
  vectorField: "embedding",
  dimension: EMBEDDING_DIMENSIONS,
  usedBy: "FirestoreFindingEmbeddings.nearest (related_findings by similarity)",
} as const satisfies VectorIndex;
const [SPACE_FIELD] = FINDING_EMBEDDING_INDEX.prefixFields;

/** Returned by findNearest next to each document; not stored. */
const DISTANCE_FIELD = "vectorDistance";

const StoredSchema = FindingEmbeddingMetaSchema.extend({ space: z.string() });

export interface FirestoreFindingEmbeddingsOptions {
  /**
   * The embedding space the vectors belong to, e.g. "gemini-embedding-001" or
   * "offline-hash". Vectors of different models are not comparable even at the same
   * dimension, so every document records its space and `nearest` only searches its own.
   */
  space: string;
  dimensions?: number;
  now?: () => Date;
}

/**
 * FindingEmbeddings on Firestore: findingEmbeddings/{investigationId} holds the finding's
 * vector (FieldValue.vector) with its category, resource, verdict and createdAt.
 * `nearest` runs findNearest with COSINE distance. Firestore's cosine distance is
 * 1 − cosine similarity (0 = same direction, 2 = opposite), so the minimum similarity s is
 * sent as distanceThreshold = 1 − s and each hit's similarity is 1 − its distance.
 */
export class FirestoreFindingEmbeddings implements FindingEmbeddings {
  private readonly dimensions: number;
  private readonly now: () => Date;

  constructor(
    private readonly db: Firestore,
    private readonly options: FirestoreFindingEmbeddingsOptions,
  ) {
    if (!options.space.trim()) throw new InvalidInputError("an embedding space name is required");
    this.dimensions = options.dimensions ?? EMBEDDING_DIMENSIONS;
    this.now = options.now ?? (() => new Date());
  }

  async upsert(id: string, vector: readonly number[], meta: FindingEmbeddingMeta): Promise<void> {
    this.checkVector(vector);
    const valid = FindingEmbeddingMetaSchema.parse(meta);
    const ref = this.db.collection(FINDING_EMBEDDINGS_COLLECTION).doc(id);
    try {
      // set without merge: a re-index replaces the old vector and drops a verdict that no longer holds.
      await ref.set({
        ...valid,
        space: this.options.space,
        embedding: FieldValue.vector([...vector]),
        updatedAt: this.now().toISOString(),
      });
    } catch (error) {
      throw toStorageError(error, `upsert finding embedding ${id}`);
    }
  }

  async nearest(
    vector: readonly number[],
    options: { limit: number; minSimilarity: number; excludeId?: string },
  ): Promise<SimilarFinding[]> {
    this.checkVector(vector);
    if (!Number.isInteger(options.limit) || options.limit < 1) return [];
    if (!(options.minSimilarity >= -1 && options.minSimilarity <= 1))
      throw new InvalidInputError("minSimilarity must be a cosine similarity between -1 and 1");
    // One extra hit, so dropping excludeId still leaves `limit`.
    const fetch = Math.min(options.limit + (options.excludeId ? 1 : 0), 1_000);
    const query = this.db
      .collection(FINDING_EMBEDDINGS_COLLECTION)
      .where(SPACE_FIELD, "==", this.options.space)
      .findNearest({
        vectorField: FINDING_EMBEDDING_INDEX.vectorField,
        queryVector: [...vector],
        limit: fetch,
        distanceMeasure: "COSINE",
        distanceThreshold: 1 - options.minSimilarity,
        distanceResultField: DISTANCE_FIELD,
      });
    let snapshot: Awaited<ReturnType<typeof query.get>>;
    try {
      snapshot = await query.get();
    } catch (error) {
      throw toStorageError(error, "find nearest finding embeddings");
    }
    const out: SimilarFinding[] = [];
    for (const doc of snapshot.docs) {
      if (doc.id === options.excludeId) continue;
      const data = doc.data();
      const meta = StoredSchema.safeParse(data);
      const distance = data[DISTANCE_FIELD];
      // A document another writer shaped differently is skipped, not allowed to fail the search.
      if (!meta.success || typeof distance !== "number") continue;
      const { space: _space, ...fields } = meta.data;
      out.push({ id: doc.id, ...fields, similarity: 1 - distance });
    }
    return out
      .sort((a, b) => b.similarity - a.similarity || a.id.localeCompare(b.id))
      .slice(0, options.limit);
  }

  private checkVector(vector: readonly number[]): void {
    if (vector.length !== this.dimensions)
      throw new InvalidInputError(`expected a ${this.dimensions}-d embedding, got ${vector.length} values`);
    if (!vector.every(Number.isFinite)) throw new InvalidInputError("the embedding holds a non-finite value");
    // Cosine distance is undefined for the zero vector.
    if (vector.every((v) => v === 0)) throw new InvalidInputError("the embedding is all zeros");
  }
}

/** For readers of raw documents (an operator's script, a test): the stored vector as numbers. */
export function vectorOf(data: Record<string, unknown>): number[] | undefined {
  const value = data.embedding;
  return value instanceof VectorValue ? value.toArray() : undefined;
}

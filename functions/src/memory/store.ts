import type { MemoryFact } from "./fact.js";
import type { Memory, MemoryId, MemoryMatch, MemoryScope } from "./memory.js";

/**
 * The vector memory port. Production and local both use Firestore (the emulator locally);
 * business logic sees only this.
 */
export interface MemorySearch {
  scope: MemoryScope;
  /** The query embedding, same model and dimensions as the stored ones. */
  vector: number[];
  /** Cosine similarity a memory needs (inclusive); the adapter converts it to a distance. */
  minSimilarity: number;
  /** At most this many, nearest first; must be ≥ 1. */
  limit: number;
  /**
   * Only memories embedded in this space (model). Filtered before the nearest K are taken,
   * so vectors of another model can neither show up nor crowd out comparable ones.
   */
  embeddingSpace: string;
}

/** Everything one introspected session changes, applied all or nothing. */
export interface IntrospectionWrite {
  sessionId: string;
  investigationId: string;
  scope: MemoryScope;
  /** New memories, each with the embedding of its own factEmbeddingText. */
  created: Array<{ id: MemoryId; fact: MemoryFact; embedding: number[] }>;
  embeddingSpace: string;
  /** Already restricted to the session's recalled memories, without duplicates or overlap. */
  helpful: MemoryId[];
  harmful: MemoryId[];
  /** The model that judged, for the audit record. */
  model: string;
  at: Date;
}

export interface IntrospectionOutcome {
  /** False when this session had already been applied: nothing was changed this time. */
  applied: boolean;
  created: MemoryId[];
  /** Scores raised / lowered (ids that no longer existed are in `missing`). */
  raised: MemoryId[];
  lowered: MemoryId[];
  /** Lowered below the deletion threshold and deleted. */
  deleted: MemoryId[];
  missing: MemoryId[];
}

export interface MemoryStore {
  /** Nearest memories of a scope with similarity ≥ minSimilarity, nearest first. Does not touch them. */
  search(query: MemorySearch): Promise<MemoryMatch[]>;
  /** Marks memories as put into a prompt now (lastUsedAt, useCount + 1); ids that are gone are skipped. */
  touch(ids: readonly MemoryId[], at: Date): Promise<void>;
  get(id: string): Promise<Memory | undefined>;
  /** The memories that still exist among `ids`, in the order given. */
  getMany(ids: readonly string[]): Promise<Memory[]>;
  /** Highest score first, every scope. */
  list(options: { limit: number }): Promise<Memory[]>;
  /** True when it existed. */
  delete(id: string): Promise<boolean>;
  /** Whether a session's introspection was already applied (a hint; applyIntrospection decides). */
  wasIntrospected(sessionId: string): Promise<boolean>;
  /**
   * Claims the session, stores new memories, applies the score changes and deletes what
   * fell below the threshold, in one transaction. A session already claimed changes nothing.
   */
  applyIntrospection(write: IntrospectionWrite): Promise<IntrospectionOutcome>;
}

import { InvalidInputError } from "../../functions/src/domain/errors.js";
import {
  DELETE_BELOW_SCORE,
  type Memory,
  type MemoryId,
  MemoryIdSchema,
  type MemoryMatch,
  MemorySchema,
  SCORE_STEP,
} from "../../functions/src/memory/memory.js";
import {
  cosineDistanceThreshold,
  cosineSimilarity,
  similarityFromCosineDistance,
} from "../../functions/src/memory/similarity.js";
import type {
  IntrospectionOutcome,
  IntrospectionWrite,
  MemorySearch,
  MemoryStore,
} from "../../functions/src/memory/store.js";
import { EMBEDDING_DIMENSIONS } from "../../functions/src/model/port.js";
import { describeIssues } from "../../functions/src/model/structured.js";

/**
 * The MemoryStore port (vector memories) in memory, for pure tests of recall and
 * introspection. It passes the same contract suite as the Firestore adapter
 * (test/contracts/memory-store.ts): search filters by scope and embedding space before it
 * takes the nearest, keeps cosine distance ≤ 1 − minSimilarity as findNearest does, and an
 * introspected session is applied once, atomically (nothing yields between the marker check
 * and the writes).
 */
export class MemoryVectorStore implements MemoryStore {
  private readonly memories = new Map<MemoryId, Memory>();
  private readonly sessions = new Set<string>();

  async search(query: MemorySearch): Promise<MemoryMatch[]> {
    if (query.vector.length !== EMBEDDING_DIMENSIONS) {
      throw new InvalidInputError(
        `query vector has ${query.vector.length} dimensions; memories are indexed at ${EMBEDDING_DIMENSIONS}`,
      );
    }
    if (query.limit < 1) return [];
    const threshold = cosineDistanceThreshold(query.minSimilarity);
    return [...this.memories.values()]
      .filter((m) => m.scope === query.scope && m.embeddingSpace === query.embeddingSpace)
      .map((memory) => ({ memory, distance: 1 - cosineSimilarity(memory.embedding, query.vector) }))
      .filter((hit) => hit.distance <= threshold)
      .sort((a, b) => a.distance - b.distance)
      .slice(0, query.limit)
      .map((hit) => ({ memory: copy(hit.memory), similarity: similarityFromCosineDistance(hit.distance) }));
  }

  async touch(ids: readonly MemoryId[], at: Date): Promise<void> {
    for (const id of new Set(ids)) {
      const memory = this.memories.get(id);
      if (memory)
        this.memories.set(id, { ...memory, lastUsedAt: at.toISOString(), useCount: memory.useCount + 1 });
    }
  }

  async get(id: string): Promise<Memory | undefined> {
    const memory = this.memories.get(id);
    return memory ? copy(memory) : undefined;
  }

  async getMany(ids: readonly string[]): Promise<Memory[]> {
    return [...new Set(ids)].flatMap((id) => {
      const memory = this.memories.get(id);
      return memory ? [copy(memory)] : [];
    });
  }

  async list(options: { limit: number }): Promise<Memory[]> {
    if (options.limit < 1) return [];
    return [...this.memories.values()]
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .slice(0, options.limit)
      .map(copy);
  }

  async delete(id: string): Promise<boolean> {
    return this.memories.delete(id);
  }

  async wasIntrospected(sessionId: string): Promise<boolean> {
    return this.sessions.has(sessionId);
  }

  async applyIntrospection(write: IntrospectionWrite): Promise<IntrospectionOutcome> {
    validate(write);
    const outcome: IntrospectionOutcome = {
      applied: !this.sessions.has(write.sessionId),
      created: [],
      raised: [],
      lowered: [],
      deleted: [],
      missing: [],
    };
    if (!outcome.applied) return outcome;
    const at = write.at.toISOString();
    const harmful = new Set(write.harmful);
    // Every new memory is checked before anything changes: the write is all or nothing.
    const created = write.created
      .filter((c) => !this.memories.has(c.id))
      .map((c) =>
        checkedMemory({
          id: c.id,
          scope: write.scope,
          fact: c.fact,
          embedding: c.embedding,
          embeddingSpace: write.embeddingSpace,
          score: 0,
          useCount: 0,
          source: { sessionId: write.sessionId, investigationId: write.investigationId },
          createdAt: at,
          updatedAt: at,
        }),
      );
    for (const id of [...write.helpful, ...write.harmful]) {
      const memory = this.memories.get(id);
      if (!memory) {
        outcome.missing.push(id);
        continue;
      }
      const next = memory.score + (harmful.has(id) ? -SCORE_STEP : SCORE_STEP);
      (harmful.has(id) ? outcome.lowered : outcome.raised).push(id);
      if (next < DELETE_BELOW_SCORE) {
        this.memories.delete(id);
        outcome.deleted.push(id);
      } else {
        this.memories.set(id, { ...memory, score: next, updatedAt: at });
      }
    }
    for (const memory of created) {
      this.memories.set(memory.id, memory);
      outcome.created.push(memory.id);
    }
    this.sessions.add(write.sessionId);
    return outcome;
  }
}

function validate(write: IntrospectionWrite): void {
  const ids = [...write.helpful, ...write.harmful, ...write.created.map((c) => c.id)];
  const bad = ids.find((id) => !MemoryIdSchema.safeParse(id).success);
  if (bad !== undefined) throw new InvalidInputError(`refusing to write memory id ${JSON.stringify(bad)}`);
  if (new Set([...write.helpful, ...write.harmful]).size !== write.helpful.length + write.harmful.length)
    throw new InvalidInputError("a memory may be judged once per session, helpful or harmful");
  if (write.created.some((c) => c.embedding.length !== EMBEDDING_DIMENSIONS))
    throw new InvalidInputError(`new memories need a ${EMBEDDING_DIMENSIONS}-d embedding`);
}

function checkedMemory(value: unknown): Memory {
  const parsed = MemorySchema.safeParse(value);
  if (!parsed.success)
    throw new InvalidInputError(
      `refusing to store an invalid memory: ${describeIssues(parsed.error.issues)}`,
    );
  return parsed.data;
}

function copy<T>(value: T): T {
  return structuredClone(value);
}

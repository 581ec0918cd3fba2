import { errorMessage } from "../domain/errors.js";
import { EMBEDDING_DIMENSIONS, type Model } from "../model/port.js";
import type { Logger } from "../platform/logger.js";
import { LOG_ANALYST_SCOPE, type MemoryScope, type RecalledMemory } from "./memory.js";
import type { MemoryStore } from "./store.js";

/** The function a sub-agent is given: its request in, the memories for its prompt out. */
export type Recall = (request: string) => Promise<RecalledMemory[]>;

export interface RecallSettings {
  /** Cosine similarity (not distance) a memory needs; config.memory.minSimilarity. */
  minSimilarity: number;
  /** config.memory.maxRecalled; 0 turns recall off. */
  maxRecalled: number;
}

export interface RecallDeps {
  /** Only embed is used; never a fallback model, whose vectors live in another space. */
  model: Pick<Model, "embed">;
  store: Pick<MemoryStore, "search" | "touch">;
  settings: RecallSettings;
  /** The vector space `model` embeds into (e.g. "gemini:gemini-embedding-001"); memories of another are skipped. */
  embeddingSpace: string;
  scope?: MemoryScope;
  logger?: Logger;
  now?: () => Date;
}

/**
 * Builds the `recall(request)` a sub-agent calls before its session: the request is
 * embedded as a retrieval query, the nearest memories of the scope at or above the
 * similarity threshold are returned (at most maxRecalled, nearest first), and they are
 * marked as used.
 *
 * Memory makes a session better but is never needed for it, so a failing embedding or
 * search is logged and the session goes ahead without memories; it then reports no
 * recalled ids and nothing can be scored wrongly.
 */
export function createRecall(deps: RecallDeps): Recall {
  const scope = deps.scope ?? LOG_ANALYST_SCOPE;
  const now = deps.now ?? (() => new Date());
  return async (request: string): Promise<RecalledMemory[]> => {
    const { minSimilarity, maxRecalled } = deps.settings;
    if (maxRecalled < 1 || request.trim() === "") return [];
    let recalled: RecalledMemory[];
    try {
      const [vector] = await deps.model.embed({
        texts: [request],
        task: "RETRIEVAL_QUERY",
        dimensions: EMBEDDING_DIMENSIONS,
      });
      if (!vector) return [];
      const matches = await deps.store.search({
        scope,
        vector,
        minSimilarity,
        limit: maxRecalled,
        embeddingSpace: deps.embeddingSpace,
      });
      const foreign = matches.filter((m) => m.memory.embeddingSpace !== deps.embeddingSpace);
      if (foreign.length > 0) {
        // The store filters by space already; a foreign hit here means a store that does not.
        // Vectors of two embedding models are not comparable; a hit between them is chance.
        deps.logger?.warn("memories embedded by another model were skipped", {
          scope,
          skipped: foreign.map((m) => ({ id: m.memory.id, embeddingSpace: m.memory.embeddingSpace })),
          expected: deps.embeddingSpace,
        });
      }
      // Stores parse every memory with MemorySchema, so what arrives here is a typed fact.
      const usable = matches.filter((m) => m.memory.embeddingSpace === deps.embeddingSpace);
      recalled = usable.map((m) => ({ id: m.memory.id, fact: m.memory.fact }));
      deps.logger?.info("memories recalled", {
        scope,
        minSimilarity,
        maxRecalled,
        recalled: usable.map((m) => ({ id: m.memory.id, similarity: Number(m.similarity.toFixed(4)) })),
      });
    } catch (error) {
      deps.logger?.warn("memory recall failed; the session runs without memories", {
        scope,
        error: errorMessage(error),
      });
      return [];
    }
    if (recalled.length === 0) return recalled;
    try {
      await deps.store.touch(
        recalled.map((m) => m.id),
        now(),
      );
    } catch (error) {
      // Usage statistics are not worth withholding memories that were found.
      deps.logger?.warn("recalled memories could not be marked as used", { error: errorMessage(error) });
    }
    return recalled;
  };
}

import { createHash } from "node:crypto";
import { z } from "zod";
import { EMBEDDING_DIMENSIONS } from "../model/port.js";
import { factKey, type MemoryFact, MemoryFactSchema } from "./fact.js";

/**
 * A memory: one typed fact a sub-agent learned about the log data (a column's value format,
 * a filter shape that ran; fact.ts), kept with the embedding of the text derived from it, so
 * a later request about the same tables and columns recalls it. Sessions that were given it
 * score it. Nothing in it is free text: not the fact, and not the request it was learned
 * from, which stays with the session (ADR 0045).
 */

/** Which agent's memories these are; memories of one agent are never shown to another. */
export const MemoryScopeSchema = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/);
export type MemoryScope = z.infer<typeof MemoryScopeSchema>;
export const LOG_ANALYST_SCOPE: MemoryScope = "log_analyst";

/** `mem_` + 24 hex: short enough for a model to copy back exactly, long enough never to collide. */
export const MemoryIdSchema = z.string().regex(/^mem_[0-9a-f]{24}$/);
export type MemoryId = z.infer<typeof MemoryIdSchema>;

/** Each helpful judgement adds this, each harmful one subtracts it. */
export const SCORE_STEP = 1;
/** A memory whose score drops below this is deleted (four net harmful judgements from 0). */
export const DELETE_BELOW_SCORE = -3;

export const MemorySchema = z.object({
  id: MemoryIdSchema,
  scope: MemoryScopeSchema,
  fact: MemoryFactSchema,
  /** The embedding of factEmbeddingText(fact): what recall searches. */
  embedding: z.array(z.number()).length(EMBEDDING_DIMENSIONS),
  /** The embedding model (vector space) `embedding` is in; vectors of two models are not comparable. */
  embeddingSpace: z.string().min(1),
  score: z.number().int(),
  useCount: z.number().int().min(0),
  source: z.object({ sessionId: z.string(), investigationId: z.string() }),
  createdAt: z.iso.datetime(),
  /** Last change of score. Recall does not count as a change. */
  updatedAt: z.iso.datetime(),
  /** Absent until the memory is first recalled into a prompt. */
  lastUsedAt: z.iso.datetime().optional(),
});
export type Memory = z.infer<typeof MemorySchema>;

/** What a sub-agent's prompt gets: the id (to be judged by) and the fact. */
export interface RecalledMemory {
  id: MemoryId;
  fact: MemoryFact;
}

/** A search hit, for operators: the memory and its cosine similarity to the query. */
export interface MemoryMatch {
  memory: Memory;
  similarity: number;
}

/**
 * Ids are derived from (scope, session, fact) rather than random: a retried transaction
 * body writes the same documents, and one session can never store the same fact twice.
 */
export function memoryIdFor(scope: MemoryScope, sessionId: string, fact: MemoryFact): MemoryId {
  const digest = createHash("sha256")
    .update(`${scope}\n${sessionId}\n${factKey(fact)}`)
    .digest("hex");
  return `mem_${digest.slice(0, 24)}`;
}

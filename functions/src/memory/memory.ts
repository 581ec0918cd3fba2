import { createHash } from "node:crypto";
import { z } from "zod";
import { EMBEDDING_DIMENSIONS } from "../model/port.js";

/**
 * A memory: one reusable claim a sub-agent learned about the environment and its data
 * ("in cloudaudit_googleapis_com_activity, protopayload_auditlog.methodName holds the API
 * method"), kept with the request it was learned from and that request's embedding, so a
 * later, similar request recalls it. Sessions that were given it score it.
 */

/** Which agent's memories these are; memories of one agent are never shown to another. */
export const MemoryScopeSchema = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/);
export type MemoryScope = z.infer<typeof MemoryScopeSchema>;
export const LOG_ANALYST_SCOPE: MemoryScope = "log_analyst";

/** `mem_` + 24 hex: short enough for a model to copy back exactly, long enough never to collide. */
export const MemoryIdSchema = z.string().regex(/^mem_[0-9a-f]{24}$/);
export type MemoryId = z.infer<typeof MemoryIdSchema>;

export const MAX_CLAIM_CHARS = 600;
export const MAX_REQUEST_CHARS = 4_000;

/** Each helpful judgement adds this, each harmful one subtracts it. */
export const SCORE_STEP = 1;
/** A memory whose score drops below this is deleted (four net harmful judgements from 0). */
export const DELETE_BELOW_SCORE = -3;

export const MemorySchema = z.object({
  id: MemoryIdSchema,
  scope: MemoryScopeSchema,
  claim: z.string().min(1).max(MAX_CLAIM_CHARS),
  /** The sub-agent request the claim was learned from; its embedding is what is searched. */
  request: z.string().max(MAX_REQUEST_CHARS),
  embedding: z.array(z.number()).length(EMBEDDING_DIMENSIONS),
  /** The embedding model (vector space) `embedding` is in; vectors of two models are not comparable. */
  embeddingSpace: z.string().min(1),
  score: z.number().int(),
  useCount: z.number().int().min(0),
  source: z.object({ sessionId: z.string(), investigationId: z.string() }),
  createdAt: z.iso.datetime(),
  /** Last change of claim or score. Recall does not count as a change. */
  updatedAt: z.iso.datetime(),
  /** Absent until the memory is first recalled into a prompt. */
  lastUsedAt: z.iso.datetime().optional(),
});
export type Memory = z.infer<typeof MemorySchema>;

/** What a sub-agent's prompt gets: the id (to be judged by) and the claim. */
export interface RecalledMemory {
  id: MemoryId;
  claim: string;
}

/** A search hit, for operators: the memory and its cosine similarity to the query. */
export interface MemoryMatch {
  memory: Memory;
  similarity: number;
}

/**
 * Ids are derived from (scope, session, claim) rather than random: a retried transaction
 * body writes the same documents, and one session can never store the same claim twice.
 */
export function memoryIdFor(scope: MemoryScope, sessionId: string, claim: string): MemoryId {
  const digest = createHash("sha256").update(`${scope}\n${sessionId}\n${claim}`).digest("hex");
  return `mem_${digest.slice(0, 24)}`;
}

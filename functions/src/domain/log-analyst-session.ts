import { z } from "zod";
import { JsonValueSchema } from "./json.js";

/**
 * One log-analysis sub-agent session, published to `agent-sessions` when it ends. The
 * memory introspector reads it to learn typed facts and to score the memories the
 * session was given. The transcript is bounded so the message stays far below Pub/Sub's
 * 10 MB limit.
 */
export const SESSION_TRANSCRIPT_MAX_BYTES = 200_000;

export const SessionTurnSchema = z.object({
  role: z.enum(["user", "model", "tool"]),
  text: z.string().optional(),
  toolCalls: z.array(z.object({ name: z.string(), args: JsonValueSchema })).optional(),
  toolResults: z.array(z.object({ name: z.string(), ok: z.boolean(), summary: z.string() })).optional(),
});
export type SessionTurn = z.infer<typeof SessionTurnSchema>;

export const LogAnalystSessionSchema = z.object({
  /** Deterministic per sub-agent invocation, so a redelivered message is recognised. */
  sessionId: z.string().min(1).max(200),
  investigationId: z.string(),
  stepId: z.string().optional(),
  agent: z.literal("log_analyst"),
  /** The natural-language request the main agent made. */
  request: z.string().max(4_000),
  /** Memories put into this session's prompt; only these can be judged helpful or harmful. */
  recalledMemoryIds: z.array(z.string()).max(100),
  transcript: z.array(SessionTurnSchema),
  /** What the sub-agent handed back to the main agent. */
  answer: z.string().max(8_000),
  model: z.string(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
});
export type LogAnalystSession = z.infer<typeof LogAnalystSessionSchema>;

import { z } from "zod";
import type { LogAnalystSession } from "../domain/log-analyst-session.js";
import { StepReportSchema } from "../domain/results.js";
import { MemoryFactSchema } from "../memory/fact.js";

/**
 * What the main agent sends to `log_analysis` and what the sub-agent's model must answer.
 * Types sit next to their schemas; the tool input is also its Gemini declaration, so it
 * uses only plain objects, strings and formats.
 */
export const MAX_REQUEST_CHARS = 2_000;
export const MAX_FOCUS_CHARS = 300;
/** Longest window a session may read; the scan cap still bounds what a query costs. */
export const MAX_WINDOW_DAYS = 31;

const Timestamp = z.iso.datetime({ offset: true });

export const TimeWindowSchema = z
  .object({
    start: Timestamp.describe("ISO 8601 window start, anchored on the finding's eventTime."),
    end: Timestamp.describe("ISO 8601 window end."),
  })
  .refine((w) => Date.parse(w.end) >= Date.parse(w.start), { message: "end is before start" })
  .refine((w) => Date.parse(w.end) - Date.parse(w.start) <= MAX_WINDOW_DAYS * 86_400_000, {
    message: `the window is longer than ${MAX_WINDOW_DAYS} days; ask about a narrower period`,
  });
export type TimeWindow = z.infer<typeof TimeWindowSchema>;

export const LogAnalystRequestSchema = z.object({
  request: z
    .string()
    .trim()
    .min(8)
    .max(MAX_REQUEST_CHARS)
    .describe(
      "One question about the logs in plain language, with the exact values to look for (IPs, VM names, principals, domains), e.g. 'Which external IPs did VM etl-worker-1 send traffic to, on which ports, and how much?'",
    ),
  timeWindow: TimeWindowSchema.optional().describe(
    "The period to search. Omit it to search the default window around the finding's eventTime.",
  ),
  focus: z
    .string()
    .trim()
    .min(1)
    .max(MAX_FOCUS_CHARS)
    .optional()
    .describe("Optional hint: the table, field or entity that matters most (e.g. 'syslog on etl-worker-1')."),
});
export type LogAnalystRequest = z.infer<typeof LogAnalystRequestSchema>;

/** The analyst's final answer: a step report (so both roles speak one format) plus open questions. */
export const LogAnalystAnswerSchema = StepReportSchema.extend({
  openQuestions: z.array(z.string().min(1).max(300)).max(5).optional(),
});
export type LogAnalystAnswer = z.infer<typeof LogAnalystAnswerSchema>;

/** A memory as the sub-agent receives it: an id the introspector can score, and the typed fact. */
export const RecalledMemorySchema = z.object({
  id: z.string().min(1).max(200),
  fact: MemoryFactSchema,
});
export type RecalledMemory = z.infer<typeof RecalledMemorySchema>;

/** Finds memories relevant to a request; the memory store provides it (default: none). */
export type RecallMemories = (request: string) => Promise<RecalledMemory[]>;

/** Hands a finished session to the memory pipeline (default: dropped). */
export type PublishSession = (session: LogAnalystSession) => Promise<void>;

export const noMemories: RecallMemories = async () => [];
export const dropSession: PublishSession = async () => {};

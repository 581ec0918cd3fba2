import { z } from "zod";
import { SlackUserIdSchema } from "./analyst.js";
import type { Investigation } from "./investigation.js";
import type { StepResult } from "./results.js";

/**
 * A question an analyst asked by mentioning ferret in an investigation's thread. The text is
 * the analyst's free text: untrusted wherever it goes (fenced in prompts, never echoed into
 * Slack, never matched to decide anything but which stored evidence to show).
 */

/** Slack's `ts` format: seconds.microseconds. */
export const SlackTsSchema = z.string().regex(/^\d{1,12}\.\d{1,8}$/);
export const SlackChannelIdSchema = z.string().regex(/^[CDG][A-Z0-9]{2,}$/);

/** The question as published on `analyst-actions` (told apart from a click by `kind`). */
export const ThreadQuestionSchema = z.object({
  kind: z.literal("question"),
  /** Slack's event id: the same on every retry of one delivery, so one answer per event. */
  eventId: z.string().regex(/^Ev[A-Za-z0-9]{4,60}$/),
  channel: SlackChannelIdSchema,
  threadTs: SlackTsSchema,
  questionTs: SlackTsSchema,
  user: z.object({ id: SlackUserIdSchema }),
  text: z.string().trim().min(1).max(3_000),
  at: z.iso.datetime(),
});
export type ThreadQuestion = z.infer<typeof ThreadQuestionSchema>;

/** One piece of stored evidence an answer may cite, by `ref`. */
export interface EvidenceItem {
  /** `finding`, `conclusion`, `step:<stepId>`, `call:<stepId>/<callId>`, or `asked:<n>` for a call made now. */
  ref: string;
  kind: "finding" | "conclusion" | "step" | "tool_call" | "asked";
  title: string;
  /** Attacker-influenced text (summaries, facts, tool output summaries). */
  text: string;
  iocs: string[];
}

/** The answer a model gives: prose plus the refs it used. */
export const ThreadAnswerSchema = z.object({
  answer: z.string().trim().min(1).max(2_500),
  citations: z.array(z.string().min(1).max(120)).max(20),
});
export type ThreadAnswer = z.infer<typeof ThreadAnswerSchema>;

const MAX_TEXT = 1_200;

function clip(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`;
}

/**
 * The investigation's stored evidence as citable items: the finding, the conclusion, every
 * step result and every tool call in them. Deterministic order (steps as stored), so the
 * same investigation always offers the same refs.
 */
export function evidenceOf(investigation: Investigation, results: readonly StepResult[]): EvidenceItem[] {
  const f = investigation.finding;
  const items: EvidenceItem[] = [
    {
      ref: "finding",
      kind: "finding",
      title: `SCC finding ${f.category}`,
      text: clip([f.category, f.description ?? "", f.resource.name].filter(Boolean).join(" — ")),
      iocs: investigation.iocValues.slice(0, 50),
    },
  ];
  const c = investigation.conclusion;
  if (c) {
    items.push({
      ref: "conclusion",
      kind: "conclusion",
      title: `ferret's conclusion: ${c.verdict} (${Math.round(c.confidence * 100)}%)`,
      text: clip([c.summary, ...c.keyFindings.map((k) => k.finding)].join(" ")),
      iocs: c.iocs.map((i) => i.value),
    });
  }
  const title = (stepId: string) => investigation.plan?.steps.find((s) => s.id === stepId)?.description;
  for (const r of results) {
    items.push({
      ref: `step:${r.stepId}`,
      kind: "step",
      title: `step ${r.stepId}${title(r.stepId) ? `: ${title(r.stepId)}` : ""}`,
      text: clip([r.summary, ...r.facts].join(" ")),
      iocs: r.iocs.map((i) => i.value),
    });
    for (const call of r.toolCalls) {
      items.push({
        ref: `call:${r.stepId}/${call.id}`,
        kind: "tool_call",
        title: `${call.name} in step ${r.stepId}`,
        text: clip(call.summary),
        iocs: [],
      });
    }
  }
  return items;
}

/** Citations that name evidence which exists; anything else a model made up is dropped. */
export function groundedCitations(citations: readonly string[], evidence: readonly EvidenceItem[]): string[] {
  const known = new Set(evidence.map((e) => e.ref));
  return [...new Set(citations.filter((c) => known.has(c)))];
}

import { createHash } from "node:crypto";
import { z } from "zod";
import { AnalystDecisionSchema } from "./analyst.js";
import { ApprovalRecordSchema, MAX_APPROVALS_PER_INVESTIGATION } from "./approval-record.js";
import { ConclusionSchema, type Verdict } from "./conclusion.js";
import { FindingSchema } from "./finding/finding.js";
import { PlanSchema } from "./plan.js";
import { UsageSchema } from "./results.js";

export const InvestigationStatusSchema = z.enum([
  "queued",
  "planning",
  "running",
  "concluding",
  "concluded",
  "needs_human",
  "failed",
]);
export type InvestigationStatus = z.infer<typeof InvestigationStatusSchema>;
export const TERMINAL_STATUSES: readonly InvestigationStatus[] = ["concluded", "needs_human", "failed"];

export const CountersSchema = z.object({
  revisions: z.number().int().min(0),
  consecutiveFailures: z.number().int().min(0),
  stepsExecuted: z.number().int().min(0),
  waves: z.number().int().min(0),
  usage: UsageSchema,
  /**
   * Bytes the log warehouse scanned for this investigation, plus the worst case of queries
   * still running (reserved before they start, settled to what they reported). Absent = 0.
   */
  bytesScanned: z.number().int().min(0).optional(),
});
export type Counters = z.infer<typeof CountersSchema>;

/**
 * A finding that met this investigation's group, as its card lists it: covered by this
 * investigation (it reports the same activity) or examined by its own investigation (it
 * differs), with why, and that investigation's outcome once it has one.
 */
export const GroupedFindingSchema = z.object({
  findingId: z.string(),
  name: z.string(),
  eventTime: z.string(),
  examination: z.enum(["covered", "own"]),
  reason: z.string().max(400),
  /** For "own": the member investigation's status, or its verdict and confidence once concluded. */
  outcome: z.string().max(100).optional(),
});
export type GroupedFinding = z.infer<typeof GroupedFindingSchema>;

/** How many grouped findings the investigation document (and its card) lists by name. */
export const GROUPED_LISTED = 10;

export const InvestigationSchema = z.object({
  id: z.string().regex(/^inv-[a-f0-9]{24}$/),
  status: InvestigationStatusSchema,
  finding: FindingSchema,
  /** Flattened IOC values, for array-contains queries by related-findings lookups. */
  iocValues: z.array(z.string()),
  plan: PlanSchema.optional(),
  counters: CountersSchema,
  conclusion: ConclusionSchema.optional(),
  /** What analysts decided in Slack, oldest first; never written over `conclusion`. */
  analystDecisions: z.array(AnalystDecisionSchema).max(100).optional(),
  /** The investigation this one re-runs (an analyst's Re-investigate); it shares that thread. */
  previousInvestigationId: z
    .string()
    .regex(/^inv-[a-f0-9]{24}$/)
    .optional(),
  /** Why the investigation stopped short (needs_human) or failed. */
  reason: z.string().optional(),
  /** Model that served the investigation; "offline" when no LLM was involved. */
  model: z.string(),
  /** True once the configured LLM failed and the offline model took over. */
  fellBackToOffline: z.boolean(),
  /**
   * Until when the offline model serves this investigation after a passing failure (a burst of
   * 429s, an outage); afterwards the configured LLM is asked again. Absent after a failure that
   * waiting cannot cure (a spent daily quota, a retired model, a refused request, output that
   * broke its schema twice): then the offline model finishes the investigation (model/choice.ts).
   */
  offlineUntil: z.iso.datetime().optional(),
  /** Why the configured LLM was last replaced, for the card and the conclusion's note. */
  fallbackReason: z.string().max(1_000).optional(),
  eventSeq: z.number().int().min(0),
  /** Set when ingest claimed the right to start the workflow, so duplicates do not start a second one. */
  launchClaimedAt: z.iso.datetime().optional(),
  executionId: z.string().optional(),
  /** Set while the storm governor holds the investigation in its queue (domain/governor.ts). */
  waitingSince: z.iso.datetime().optional(),
  /** When the governor let it start, and the admission's number (orders admissions exactly). */
  admittedAt: z.iso.datetime().optional(),
  admissionSeq: z.number().int().min(1).optional(),
  /**
   * Findings that met this investigation's group (covered by it, or examined by their own
   * investigation), as last written; the governor's related list is the exact one.
   */
  relatedCount: z.number().int().min(0).optional(),
  /** When relatedCount was last written (a running lead's count is refreshed at most every 2 s). */
  relatedNotedAt: z.iso.datetime().optional(),
  /** The first GROUPED_LISTED findings of the group, each with how it was examined. */
  grouped: z.array(GroupedFindingSchema).max(GROUPED_LISTED).optional(),
  /**
   * The investigation whose group this finding met while differing from its lead (in any field
   * but its name, times and log entry ids): it is examined here, and the lead's card lists its outcome.
   */
  groupLeadId: z.string().optional(),
  /** Acting calls the workflow paused on for a person's approval, with their outcomes. */
  approvals: z.array(ApprovalRecordSchema).max(MAX_APPROVALS_PER_INVESTIGATION).optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  deadlineAt: z.iso.datetime(),
});
export type Investigation = z.infer<typeof InvestigationSchema>;

/**
 * One investigation per finding occurrence: the same finding name and eventTime always
 * map to the same id, so a redelivered notification cannot start a second one.
 */
export function investigationIdFor(findingName: string, eventTime: string): string {
  // v2 NotificationConfigs name findings with /locations/<loc>/; the same finding
  // delivered through a v1 and a v2 config must still be one investigation.
  const canonicalName = findingName.replace(/\/locations\/[^/]+\/findings\//, "/findings/");
  const digest = createHash("sha256")
    .update(`${canonicalName}\n${new Date(eventTime).toISOString()}`)
    .digest("hex");
  return `inv-${digest.slice(0, 24)}`;
}

/**
 * The one re-investigation of an investigation: deterministic, so double clicks and
 * redeliveries (and two analysts clicking at once) start the same one.
 */
export function reinvestigationIdFor(previousId: string): string {
  const digest = createHash("sha256").update(`${previousId}\nreinvestigate`).digest("hex");
  return `inv-${digest.slice(0, 24)}`;
}

export const EventTypeSchema = z.enum([
  "created",
  "planned",
  "step_started",
  "step_finished",
  "reflected",
  "compressed",
  "concluded",
  "needs_human",
  "failed",
  /** The governor queued the investigation (limits reached or others waiting). */
  "queued",
  /** A finding joined this investigation as related; the message carries the new count. */
  "related",
  /** An acting call waits on a person: the notifier posts the Approve / Deny message. */
  "approval_requested",
  /** Approved, denied or timed out; and, for an approved call, what running it did. */
  "approval_decided",
  "action_ran",
]);
export type EventType = z.infer<typeof EventTypeSchema>;

export const InvestigationEventSchema = z.object({
  investigationId: z.string(),
  seq: z.number().int().min(1),
  type: EventTypeSchema,
  at: z.iso.datetime(),
  /** Short text a person can read in the terminal or a Slack reply. */
  message: z.string(),
  stepId: z.string().optional(),
});
export type InvestigationEvent = z.infer<typeof InvestigationEventSchema>;

/**
 * The verdict later investigations may lean on: only a concluded investigation's. A
 * needs_human investigation can hold a draft conclusion (e.g. a dismissal that threat intel
 * contradicted); offering it as precedent would spread exactly what was held back.
 */
export function settledVerdict(
  investigation: Pick<Investigation, "status" | "conclusion">,
): Verdict | undefined {
  return investigation.status === "concluded" ? investigation.conclusion?.verdict : undefined;
}

/** `{ verdict }` when there is a settled verdict, for spreading into summaries of past investigations. */
export function settledVerdictField(investigation: Pick<Investigation, "status" | "conclusion">): {
  verdict?: Verdict;
} {
  const verdict = settledVerdict(investigation);
  return verdict ? { verdict } : {};
}

import { z } from "zod";
import { type Finding, SEVERITY_RANK, type Severity } from "./finding/finding.js";
import {
  type FindingPrint,
  printDifferences,
  StoredPrintSchema,
  storedPrint,
} from "./finding/finding-print.js";

/**
 * The storm governor's rules, pure: which finding may start an investigation now, which
 * waits, in what order the waiting ones start, and which findings join a running
 * investigation instead of starting their own. The Firestore adapter applies them inside
 * transactions; these functions decide.
 */

/** Limits on investigations ferret runs at once and over time. 0 means "no limit" for the token limits. */
export const GovernorLimitsSchema = z.object({
  /** Investigations started and not yet finished, at most. */
  maxConcurrent: z.number().int().min(1).max(1_000).default(10),
  /** Investigations started in any rolling hour, at most. */
  perHour: z.number().int().min(1).max(100_000).default(30),
  /** Model tokens (input + output) of investigations that finished in the rolling hour; 0 = no limit. */
  tokensPerHour: z.number().int().min(0).default(4_000_000),
  /** The same over the rolling day; 0 = no limit. */
  tokensPerDay: z.number().int().min(0).default(40_000_000),
  /**
   * A finding with the same category and the same principal or resource as an unfinished
   * investigation opened less than this long ago joins it; 0 (the default of the code, so a
   * local run investigates every finding) turns grouping off. Terraform deploys 30.
   */
  groupWindowMinutes: z.number().int().min(0).max(1_440).default(0),
});
export type GovernorLimits = z.infer<typeof GovernorLimitsSchema>;

/** What the governor has counted, as of the decision. */
export interface GovernorUsage {
  running: number;
  startedLastHour: number;
  tokensLastHour: number;
  tokensLastDay: number;
  /** Findings already waiting; a new one never overtakes them (the queue decides the order). */
  waiting: number;
}

export type AdmissionDecision = { admit: true } | { admit: false; reason: string };

/**
 * Whether a new investigation may start now. A full queue means "wait your turn": the
 * drain starts queued findings by severity, so admitting a newcomer past them would break
 * that order.
 */
export function admissionDecision(usage: GovernorUsage, limits: GovernorLimits): AdmissionDecision {
  const over = limitReached(usage, limits);
  if (over) return { admit: false, reason: over };
  if (usage.waiting > 0) return { admit: false, reason: `${usage.waiting} finding(s) already waiting` };
  return { admit: true };
}

/** The first limit the usage has reached, in words, or undefined when there is room. */
export function limitReached(usage: GovernorUsage, limits: GovernorLimits): string | undefined {
  if (usage.running >= limits.maxConcurrent)
    return `${usage.running} investigations running (limit ${limits.maxConcurrent})`;
  if (usage.startedLastHour >= limits.perHour)
    return `${usage.startedLastHour} investigations started in the last hour (limit ${limits.perHour})`;
  if (limits.tokensPerHour > 0 && usage.tokensLastHour >= limits.tokensPerHour)
    return `${usage.tokensLastHour} model tokens in the last hour (limit ${limits.tokensPerHour})`;
  if (limits.tokensPerDay > 0 && usage.tokensLastDay >= limits.tokensPerDay)
    return `${usage.tokensLastDay} model tokens in the last day (limit ${limits.tokensPerDay})`;
  return undefined;
}

/** How many queued investigations a drain may start now. */
export function freeSlots(usage: Omit<GovernorUsage, "waiting">, limits: GovernorLimits): number {
  if (limitReached({ ...usage, waiting: 0 }, limits)) return 0;
  return Math.min(limits.maxConcurrent - usage.running, limits.perHour - usage.startedLastHour);
}

/**
 * The queue's order as one string, so a single-field index (no composite index) serves it:
 * severity first (CRITICAL before HIGH … before unspecified), then the finding's event
 * time (oldest first), then the id to make ties total.
 */
export function queueSortKey(severity: Severity, eventTime: string, id: string): string {
  const rank = 9 - SEVERITY_RANK[severity];
  const time = new Date(eventTime).toISOString();
  return `${rank}|${time}|${id}`;
}

/** Sorts like the queue: by queueSortKey. */
export function compareQueued(a: { sortKey: string }, b: { sortKey: string }): number {
  return a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0;
}

export type GroupKind = "principal" | "resource";

export interface GroupKey {
  kind: GroupKind;
  category: string;
  value: string;
}

/**
 * Resources that contain other resources: a whole organization, folder or project. Findings
 * that only name one of these (an IAM grant, a bad IP seen anywhere in the project) share it
 * with every unrelated finding of the same category in that project, so it is not a grouping
 * key: issue 27's real owner grant joined a decoy's investigation by the project alone.
 */
const CONTAINER_RESOURCE =
  /^\/\/cloudresourcemanager\.googleapis\.com\/(?:projects|folders|organizations)\/[^/]+$/;
const CONTAINER_TYPES = new Set([
  "google.cloud.resourcemanager.Project",
  "google.cloud.resourcemanager.Folder",
  "google.cloud.resourcemanager.Organization",
]);

export function isContainerResource(resource: Pick<Finding["resource"], "name" | "type">): boolean {
  return CONTAINER_RESOURCE.test(resource.name) || CONTAINER_TYPES.has(resource.type ?? "");
}

/**
 * The keys under which a finding can join another: its category with its principal, and its
 * category with its resource when that resource is not a whole project, folder or
 * organization. Compared exactly (never by substring), and only when the value is present: a
 * finding without a principal can still group by resource.
 */
export function groupKeys(finding: Pick<Finding, "category" | "resource" | "access">): GroupKey[] {
  const keys: GroupKey[] = [];
  const principal = finding.access?.principalEmail || finding.access?.principalSubject;
  if (principal) keys.push({ kind: "principal", category: finding.category, value: principal });
  if (finding.resource.name && !isContainerResource(finding.resource))
    keys.push({ kind: "resource", category: finding.category, value: finding.resource.name });
  return keys;
}

/**
 * What a grouped finding is about: who acted and on what (for the card's words), and its print
 * (finding-print.ts), which decides whether a later finding says the same. Kept on the group so
 * a later finding can be compared without reading the lead's investigation.
 */
export const GroupSubjectSchema = z.object({
  principal: z.string().optional(),
  resource: z.string(),
  print: StoredPrintSchema,
});
export type GroupSubject = z.infer<typeof GroupSubjectSchema>;

export function groupSubject(
  finding: Pick<Finding, "access" | "resource">,
  print: FindingPrint,
): GroupSubject {
  const principal = finding.access?.principalEmail || finding.access?.principalSubject;
  return {
    ...(principal ? { principal } : {}),
    resource: finding.resource.name,
    print: storedPrint(print),
  };
}

/**
 * How a finding differs from its group's lead, in words; empty only when it is the lead's
 * finding field for field except what identifies an occurrence (OCCURRENCE_FIELDS). The lead's
 * verdict stands only for a finding without differences; any other is examined on its own.
 */
export function differencesFromLead(lead: GroupSubject, member: FindingPrint): string[] {
  return printDifferences(lead.print, member);
}

/** Why the lead's investigation stands for a finding without differences, in words. */
export function coveredBecause(lead: GroupSubject): string {
  const who = lead.principal ? `the same principal ${lead.principal}` : "no principal, like the lead's";
  return `it reports the same activity: the lead's finding field for field (${who} on the same resource ${lead.resource}), only its name, times and log entry ids differ`;
}

/** A group's lead as the governor stored it: which investigation, opened when, about what. */
export interface GroupLead {
  leadId: string;
  openedAt: string;
  /** When the lead's investigation finished; it takes no more findings after. */
  finishedAt?: string;
  subject?: GroupSubject;
}

/**
 * Whether a finding arriving at `now` joins the lead's group: the lead is another
 * investigation, opened inside the window, and not finished.
 */
export function joinsLead(lead: GroupLead, findingId: string, now: Date, windowMinutes: number): boolean {
  if (windowMinutes <= 0 || lead.leadId === findingId || lead.finishedAt !== undefined) return false;
  return now.getTime() - Date.parse(lead.openedAt) < windowMinutes * 60_000;
}

/**
 * Counts over time are kept in five-minute buckets keyed by the bucket's start, so the
 * state document stays bounded (at most 288 buckets a day) whatever the storm.
 */
export const BUCKET_MS = 5 * 60_000;
const DAY_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;

export function bucketOf(at: Date): string {
  return new Date(Math.floor(at.getTime() / BUCKET_MS) * BUCKET_MS).toISOString();
}

/** Sum of buckets whose start lies within `spanMs` before now (the current bucket included). */
export function sumSince(buckets: Record<string, number>, now: Date, spanMs: number): number {
  const from = now.getTime() - spanMs;
  let sum = 0;
  for (const [start, value] of Object.entries(buckets))
    if (Date.parse(start) > from - BUCKET_MS) sum += value;
  return sum;
}

/** The buckets with `amount` added at `now`, those older than a day dropped. */
export function addToBucket(
  buckets: Record<string, number>,
  now: Date,
  amount: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  const oldest = now.getTime() - DAY_MS - BUCKET_MS;
  for (const [start, value] of Object.entries(buckets)) if (Date.parse(start) > oldest) out[start] = value;
  const key = bucketOf(now);
  out[key] = (out[key] ?? 0) + amount;
  return out;
}

/** The governor's bookkeeping document. */
export const GovernorStateSchema = z.object({
  /** Investigations started and not yet released: id → when it was admitted and its admission number. */
  running: z.record(z.string(), z.object({ admittedAt: z.iso.datetime(), seq: z.number().int().min(1) })),
  startBuckets: z.record(z.string(), z.number().int().min(0)),
  tokenBuckets: z.record(z.string(), z.number().int().min(0)),
  /** Admissions so far; each admission's number orders them exactly (timestamps can tie). */
  admittedTotal: z.number().int().min(0),
});
export type GovernorState = z.infer<typeof GovernorStateSchema>;

export const EMPTY_GOVERNOR_STATE: GovernorState = {
  running: {},
  startBuckets: {},
  tokenBuckets: {},
  admittedTotal: 0,
};

export function usageOf(state: GovernorState, waiting: number, now: Date): GovernorUsage {
  return {
    running: Object.keys(state.running).length,
    startedLastHour: sumSince(state.startBuckets, now, HOUR_MS),
    tokensLastHour: sumSince(state.tokenBuckets, now, HOUR_MS),
    tokensLastDay: sumSince(state.tokenBuckets, now, DAY_MS),
    waiting,
  };
}

/** The state after admitting `id` at `now`, with the admission's number. */
export function withAdmitted(
  state: GovernorState,
  id: string,
  now: Date,
): { state: GovernorState; seq: number } {
  const seq = state.admittedTotal + 1;
  return {
    seq,
    state: {
      ...state,
      running: { ...state.running, [id]: { admittedAt: now.toISOString(), seq } },
      startBuckets: addToBucket(state.startBuckets, now, 1),
      admittedTotal: seq,
    },
  };
}

/** The state after `id` finished having spent `tokens`; unchanged when it was not running (a repeat). */
export function withReleased(
  state: GovernorState,
  id: string,
  tokens: number,
  now: Date,
): GovernorState | undefined {
  if (!(id in state.running)) return undefined;
  const { [id]: _done, ...running } = state.running;
  return { ...state, running, tokenBuckets: addToBucket(state.tokenBuckets, now, tokens) };
}

/** A queued finding, as stored in the queue and shown by `ferret queue`. */
export const QueueEntrySchema = z.object({
  investigationId: z.string(),
  sortKey: z.string(),
  severity: z.string(),
  category: z.string(),
  eventTime: z.iso.datetime(),
  queuedAt: z.iso.datetime(),
  /** Which limit held it back, filled in when it is told it waits. */
  reason: z.string(),
  /** Whether its `queued` event went out: a drain tells each entry still waiting once. */
  announced: z.boolean().default(false),
});
export type QueueEntry = z.infer<typeof QueueEntrySchema>;

export function queueEntryFor(
  finding: Pick<Finding, "severity" | "category" | "eventTime">,
  investigationId: string,
  now: Date,
  reason: string,
): QueueEntry {
  return {
    investigationId,
    sortKey: queueSortKey(finding.severity, finding.eventTime, investigationId),
    severity: finding.severity,
    category: finding.category,
    eventTime: new Date(finding.eventTime).toISOString(),
    queuedAt: now.toISOString(),
    reason,
    announced: false,
  };
}

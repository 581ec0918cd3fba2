import type { FindingPrint } from "../domain/finding/finding-print.js";
import type {
  GovernorLimits,
  GovernorState,
  GroupKey,
  GroupSubject,
  QueueEntry,
} from "../domain/governor.js";

/** How a finding that met a live group is examined. */
export type Examination =
  /** It reports the lead's activity (no difference): the lead's investigation stands for it. */
  | "covered"
  /** It differs from the lead in a field other than its name, times and log entry ids: its own investigation examines it. */
  | "own";

/** What a finding became when it asked to join a group. */
export type GroupOutcome =
  /** No live group to join: this finding leads its groups (and starts or queues its own investigation). */
  | { kind: "lead" }
  /** It met the live group of `leadId` now, and is examined as `examination` says, for `reason`. */
  | { kind: "joined"; leadId: string; matchedOn: GroupKey["kind"]; examination: Examination; reason: string }
  /** It had met `leadId`'s group before (a redelivery). */
  | { kind: "already_joined"; leadId: string; examination: Examination };

export interface RelatedFinding {
  findingId: string;
  name: string;
  category: string;
  severity: string;
  eventTime: string;
  matchedOn: GroupKey["kind"];
  value: string;
  joinedAt: string;
  /** Covered by the lead, or examined by its own investigation (whose id is the findingId). */
  examination: Examination;
  /** Why, in words: the lead covers the same activity, or what differs from the lead. */
  reason: string;
  principal?: string;
  resource: string;
}

export type EnqueueOutcome =
  | { kind: "queued"; entry: QueueEntry; repeat: boolean }
  /** A drain admitted it already (a redelivery after admission). */
  | { kind: "admitted"; seq: number; admittedAt: string };

/** A finished investigation's slot to free, with its tokens and the group keys it led. */
export interface Release {
  investigationId: string;
  tokens: number;
  keys: GroupKey[];
}

export interface DrainOutcome {
  released: string[];
  admitted: { investigationId: string; seq: number }[];
}

/**
 * The governor's durable state. Ingest only writes documents of its own finding (its queue
 * entry, its group membership): the state document (running set, usage buckets) is written by
 * the drain alone, which one coalescing drainer runs at most once a second (decision 0039), so
 * no document is written faster than Firestore sustains. Every operation is idempotent, so a
 * Pub/Sub redelivery or a retried transaction repeats nothing.
 */
export interface GovernorStore {
  /**
   * Joins a live group of the finding's keys, or makes the finding their lead; one transaction.
   * `subject` is what a group it leads stores; `print` is its full print, compared with a lead's.
   */
  group(
    related: Pick<RelatedFinding, "findingId" | "name" | "category" | "severity" | "eventTime">,
    keys: GroupKey[],
    subject: GroupSubject,
    print: FindingPrint,
    windowMinutes: number,
    now: Date,
  ): Promise<GroupOutcome>;
  /** Puts the investigation in the queue; a repeat finds it queued or already admitted. */
  enqueue(entry: QueueEntry): Promise<EnqueueOutcome>;
  /**
   * One transaction: frees the finished investigations' slots (booking their tokens, closing
   * the groups they led), then moves the head of the queue into the running set while the
   * limits allow, at most `max`. The only writer of the state document.
   */
  drain(limits: GovernorLimits, now: Date, max: number, releases: readonly Release[]): Promise<DrainOutcome>;
  state(): Promise<GovernorState>;
  /** Queued findings in drain order. */
  queue(limit: number): Promise<QueueEntry[]>;
  queueDepth(): Promise<number>;
  /** Findings queued ahead of this sort key. */
  aheadOf(sortKey: string): Promise<number>;
  /** Queued findings not yet told they wait, oldest admission attempts first. */
  unannounced(limit: number): Promise<QueueEntry[]>;
  markAnnounced(investigationId: string): Promise<void>;
  relatedCount(leadId: string): Promise<number>;
  listRelated(leadId: string, limit: number): Promise<RelatedFinding[]>;
  /** Leads with the most related findings among the most recent `scan` leads, for `ferret queue`. */
  topGroups(limit: number, scan?: number): Promise<{ leadId: string; relatedCount: number }[]>;
}

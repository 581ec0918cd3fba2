import type { GovernorLimits, GovernorState, GroupKey, QueueEntry } from "../domain/governor.js";

/** What a finding became when it asked to join a group. */
export type GroupOutcome =
  /** No live investigation to join: this finding leads its groups (and starts or queues its own). */
  | { kind: "lead" }
  /** It joined `leadId` now; `relatedCount` is the lead's count including it. */
  | { kind: "joined"; leadId: string; relatedCount: number; matchedOn: GroupKey["kind"] }
  /** It had joined `leadId` before (a redelivery). */
  | { kind: "already_joined"; leadId: string; relatedCount: number };

export interface RelatedFinding {
  findingId: string;
  name: string;
  category: string;
  severity: string;
  eventTime: string;
  matchedOn: GroupKey["kind"];
  value: string;
  joinedAt: string;
}

export type AdmitOutcome =
  | { kind: "admitted"; seq: number; repeat: boolean }
  | { kind: "queued"; entry: QueueEntry; repeat: boolean };

/**
 * The governor's durable state: the running set and usage buckets (one document, changed in
 * transactions), the queue, and the groups. Every operation is idempotent, so a Pub/Sub
 * redelivery or a retried transaction repeats nothing.
 */
export interface GovernorStore {
  /** Joins a live group of the finding's keys, or makes the finding their lead; one transaction. */
  group(
    related: Omit<RelatedFinding, "matchedOn" | "value" | "joinedAt">,
    keys: GroupKey[],
    windowMinutes: number,
    now: Date,
  ): Promise<GroupOutcome>;
  /** Starts the investigation now or queues it, by admissionDecision; a repeat returns the first outcome. */
  admit(entry: QueueEntry, limits: GovernorLimits, now: Date): Promise<AdmitOutcome>;
  /** Moves the head of the queue into the running set while the limits allow; returns the admitted. */
  drain(limits: GovernorLimits, now: Date, max: number): Promise<{ investigationId: string; seq: number }[]>;
  /** Frees a running investigation's slot and books its tokens; false when it was not running. */
  release(investigationId: string, tokens: number, now: Date): Promise<boolean>;
  state(): Promise<GovernorState>;
  /** Queued findings in drain order. */
  queue(limit: number): Promise<QueueEntry[]>;
  queueDepth(): Promise<number>;
  /** Findings queued ahead of this sort key. */
  aheadOf(sortKey: string): Promise<number>;
  relatedCount(leadId: string): Promise<number>;
  listRelated(leadId: string, limit: number): Promise<RelatedFinding[]>;
  /** Leads with the most related findings, for `ferret queue`. */
  topGroups(limit: number): Promise<{ leadId: string; relatedCount: number }[]>;
}

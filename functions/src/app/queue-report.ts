import { type GovernorLimits, limitReached, type QueueEntry, usageOf } from "../domain/governor.js";
import type { GovernorStore } from "../ports/governor-store.js";

/** What `ferret queue` shows: the governor's queue, limits, usage and groups. */
export interface QueueReport {
  depth: number;
  next: QueueEntry[];
  limits: GovernorLimits;
  usage: { running: number; startedLastHour: number; tokensLastHour: number; tokensLastDay: number };
  /** The limit that holds the queue back now, if any. */
  blockedBy?: string;
  running: { investigationId: string; admittedAt: string }[];
  groups: { leadId: string; relatedCount: number }[];
}

export async function queueReport(
  governor: GovernorStore,
  limits: GovernorLimits,
  now: Date,
  options: { next: number; groups: number },
): Promise<QueueReport> {
  const [state, depth, next, groups] = await Promise.all([
    governor.state(),
    governor.queueDepth(),
    governor.queue(options.next),
    governor.topGroups(options.groups),
  ]);
  const { waiting: _w, ...usage } = usageOf(state, depth, now);
  const blockedBy = limitReached({ ...usage, waiting: 0 }, limits);
  return {
    depth,
    next,
    limits,
    usage,
    ...(blockedBy ? { blockedBy } : {}),
    running: Object.entries(state.running)
      .map(([investigationId, r]) => ({ investigationId, admittedAt: r.admittedAt }))
      .sort((a, b) => a.admittedAt.localeCompare(b.admittedAt)),
    groups,
  };
}

import { errorMessage } from "../domain/errors.js";
import { type Investigation, TERMINAL_STATUSES } from "../domain/investigation.js";
import type { IngestDeps } from "./deps.js";
import { recordIfEnded } from "./investigation-meters.js";
import { publishEvents } from "./publish.js";

/**
 * Beyond the total deadline an investigation's own workflow has given up on it; the extra
 * hour covers a finding still waiting for Pub/Sub to redeliver it (about an hour of
 * retries, terraform `pubsub_max_delivery_attempts`).
 */
const GRACE_MS = 60 * 60_000;
/**
 * The period of the default schedule of scheduled sweeps (terraform `sweep_schedule`, checked
 * by test/unit/terraform); the local stack ticks faster (local/stack.ts).
 */
export const SWEEP_PERIOD_MS = 15 * 60_000;
/** Events of recent sweeps are sent again for this long (two periods), in case their publish failed. */
const REPUBLISH_MS = 2 * SWEEP_PERIOD_MS;
const DEFAULT_LIMIT = 25;
/** Starts every reason the sweep writes; how a later sweep recognises its own marks. */
const REASON_PREFIX = "no progress for ";

export type SweepDeps = Pick<IngestDeps, "config" | "store" | "bus" | "logger" | "now">;

export interface SweepReport {
  /** Unfinished investigations unchanged since this time were looked at. */
  updatedBefore: string;
  /** Those found, least recently changed first (all of them on a dry run). */
  stalled: string[];
  /** Ids marked needs_human by this sweep. */
  marked: string[];
  /** Ids whose mark or event failed; the next sweep tries again. */
  failed: string[];
  /** Recently swept investigations whose needs_human event was sent again. */
  republished: number;
}

/** How long an unfinished investigation may go without any change before it is swept. */
export function stallAfterMs(deps: Pick<SweepDeps, "config">): number {
  return deps.config.agent.totalDeadlineSeconds * 1_000 + GRACE_MS;
}

function stalledReason(inv: Investigation, now: Date): string {
  const minutes = Math.round((now.getTime() - Date.parse(inv.updatedAt)) / 60_000);
  const run = inv.executionId
    ? `its workflow execution ${inv.executionId} stopped without finishing it`
    : "no workflow execution was ever started for it";
  return `${REASON_PREFIX}${minutes} min while ${inv.status}, past its deadline (${inv.deadlineAt}): ${run}`;
}

/**
 * Marks unfinished investigations that stopped changing as needs_human, so a finding whose
 * workflow execution died (e.g. its failure path could not reach Firestore either) still
 * reaches a person, with what its finished steps learned. No model call: the Slack reply
 * lists the step results as they stand. An investigation that changed meanwhile is left
 * alone; one that fails is reported and left for the next sweep.
 */
export async function sweepStalled(
  deps: SweepDeps,
  options: { limit?: number; dryRun?: boolean } = {},
): Promise<SweepReport> {
  const now = deps.now();
  const updatedBefore = new Date(now.getTime() - stallAfterMs(deps)).toISOString();
  // A finding waiting in the governor's queue is not stalled: it waits its turn (app/governor.ts).
  const stalled = (
    await deps.store.listStalled({ updatedBefore, limit: options.limit ?? DEFAULT_LIMIT })
  ).filter((i) => !i.waitingSince);
  const report: SweepReport = {
    updatedBefore,
    stalled: stalled.map((i) => i.id),
    marked: [],
    failed: [],
    republished: 0,
  };
  if (options.dryRun) return report;
  const justMarked = new Set<string>();
  for (const found of stalled) {
    try {
      const committed = await deps.store.update(found.id, (current) => {
        if (
          TERMINAL_STATUSES.includes(current.status) ||
          current.updatedAt >= updatedBefore ||
          current.waitingSince
        )
          return undefined;
        const reason = stalledReason(current, now);
        return {
          investigation: { ...current, status: "needs_human", reason, updatedAt: now.toISOString() },
          events: [{ type: "needs_human", message: `Needs a human: ${reason}` }],
        };
      });
      if (committed.events.length === 0) continue;
      recordIfEnded(committed);
      justMarked.add(found.id);
      report.marked.push(found.id);
      deps.logger.warn("stalled investigation marked needs_human", {
        investigationId: found.id,
        reason: committed.investigation.reason,
      });
      await publishEvents(deps.bus, committed.events);
    } catch (error) {
      report.failed.push(found.id);
      deps.logger.error("sweeping an investigation failed; the next sweep tries again", {
        investigationId: found.id,
        error: errorMessage(error),
      });
    }
  }
  report.republished = await republishRecentMarks(deps, now, justMarked);
  return report;
}

/**
 * A mark is committed before its event is published, and a marked investigation is no
 * longer stalled: if that publish failed, nothing would ever send the event. So each sweep
 * sends again the needs_human events of the marks of the last two periods; the notifier
 * posts each event once, whatever the number of deliveries.
 */
async function republishRecentMarks(deps: SweepDeps, now: Date, skip: ReadonlySet<string>): Promise<number> {
  const recent = await deps.store.listChangedSince({
    status: "needs_human",
    updatedAfter: new Date(now.getTime() - REPUBLISH_MS).toISOString(),
    limit: 100,
  });
  let sent = 0;
  for (const inv of recent) {
    if (skip.has(inv.id) || !inv.reason?.startsWith(REASON_PREFIX)) continue;
    try {
      const events = (await deps.store.listEvents(inv.id)).filter((e) => e.type === "needs_human");
      await publishEvents(deps.bus, events);
      sent += 1;
    } catch (error) {
      deps.logger.warn("re-sending a sweep's event failed", {
        investigationId: inv.id,
        error: errorMessage(error),
      });
    }
  }
  return sent;
}

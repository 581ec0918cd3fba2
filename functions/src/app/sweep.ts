import { errorMessage } from "../domain/errors.js";
import { type Investigation, TERMINAL_STATUSES } from "../domain/investigation.js";
import type { IngestDeps } from "./deps.js";
import { publishEvents } from "./publish.js";

/**
 * Beyond the total deadline an investigation's own workflow has given up on it; the extra
 * hour covers a finding still waiting for Pub/Sub to redeliver it (about an hour of
 * retries, terraform `pubsub_max_delivery_attempts`).
 */
const GRACE_MS = 60 * 60_000;
/** At most one sweep per window, whichever instance gets there first. */
export const SWEEP_WINDOW_MS = 15 * 60_000;
const DEFAULT_LIMIT = 25;

export type SweepDeps = Pick<IngestDeps, "config" | "store" | "bus" | "logger" | "now">;

export interface SweepReport {
  /** Unfinished investigations unchanged since this time were looked at. */
  updatedBefore: string;
  stalled: number;
  /** Ids marked needs_human by this sweep. */
  marked: string[];
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
  return `no progress for ${minutes} min while ${inv.status}, past its deadline (${inv.deadlineAt}): ${run}`;
}

/**
 * Marks unfinished investigations that stopped changing as needs_human, so a finding whose
 * workflow execution died (e.g. its failure path could not reach Firestore either) still
 * reaches a person, with what its finished steps learned. No model call: the Slack reply
 * lists the step results as they stand. An investigation that changed meanwhile is left alone.
 */
export async function sweepStalled(deps: SweepDeps, options: { limit?: number } = {}): Promise<SweepReport> {
  const now = deps.now();
  const updatedBefore = new Date(now.getTime() - stallAfterMs(deps)).toISOString();
  const stalled = await deps.store.listStalled({ updatedBefore, limit: options.limit ?? DEFAULT_LIMIT });
  const marked: string[] = [];
  for (const found of stalled) {
    const committed = await deps.store.update(found.id, (current) => {
      if (TERMINAL_STATUSES.includes(current.status) || current.updatedAt >= updatedBefore) return undefined;
      const reason = stalledReason(current, now);
      return {
        investigation: { ...current, status: "needs_human", reason, updatedAt: now.toISOString() },
        events: [{ type: "needs_human", message: `Needs a human: ${reason}` }],
      };
    });
    if (committed.events.length === 0) continue;
    await publishEvents(deps.bus, committed.events);
    marked.push(found.id);
    deps.logger.warn("stalled investigation marked needs_human", {
      investigationId: found.id,
      reason: committed.investigation.reason,
    });
  }
  return { updatedBefore, stalled: stalled.length, marked };
}

/**
 * Runs a sweep if none ran in the current window. Called after ingest handles a message:
 * findings arrive all the time, so the sweep needs no scheduler of its own. Never throws;
 * a failed sweep is logged and the next window tries again.
 */
export async function sweepIfDue(deps: SweepDeps): Promise<SweepReport | undefined> {
  try {
    const window = Math.floor(deps.now().getTime() / SWEEP_WINDOW_MS);
    if (!(await deps.store.claimOnce("sweep", String(window)))) return undefined;
    const report = await sweepStalled(deps);
    if (report.stalled > 0) deps.logger.info("sweep done", { ...report });
    return report;
  } catch (error) {
    deps.logger.warn("sweep failed; the next window tries again", { error: errorMessage(error) });
    return undefined;
  }
}

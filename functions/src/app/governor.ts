import { errorMessage, NotFoundError, StorageError } from "../domain/errors.js";
import type { Finding } from "../domain/finding.js";
import { groupKeys, queueEntryFor } from "../domain/governor.js";
import { type Investigation, TERMINAL_STATUSES } from "../domain/investigation.js";
import { brainOf } from "../model/brain.js";
import { TOPICS } from "../platform/topics.js";
import type { GovernorStore, GroupOutcome } from "../ports/governor-store.js";
import type { IngestDeps } from "./deps.js";
import { publishEvents } from "./publish.js";
import type { SweepRequest } from "./sweep-request.js";

/**
 * The storm governor's operations (rules in domain/governor.ts, state in a GovernorStore):
 * grouping a finding into a live investigation, admitting or queueing a new one, and
 * draining the queue when an investigation finishes and on each scheduled sweep.
 */
export type GovernedDeps = IngestDeps & { governor: GovernorStore };

/**
 * Model tokens an investigation spent, as its usage accounting counted them. Only an LLM's
 * count against the token limits: the offline playbook model reports none, and records it
 * wrote before it stopped estimating (issue 29) are not billed either.
 */
export function tokensOf(
  inv: Pick<Investigation, "counters" | "model" | "fellBackToOffline" | "conclusion">,
): number {
  if (brainOf(inv).kind === "offline") return 0;
  return inv.counters.usage.inputTokens + inv.counters.usage.outputTokens;
}

/**
 * Joins the finding to a live investigation with the same category and principal or
 * resource, if there is one, and makes that investigation's count visible (a `related`
 * event the notifier turns into the thread root's "+ N related findings").
 */
export async function groupFinding(
  finding: Finding,
  findingId: string,
  deps: GovernedDeps,
): Promise<GroupOutcome> {
  const outcome = await deps.governor.group(
    {
      findingId,
      name: finding.name,
      category: finding.category,
      severity: finding.severity,
      eventTime: new Date(finding.eventTime).toISOString(),
    },
    groupKeys(finding),
    deps.config.governor.groupWindowMinutes,
    deps.now(),
  );
  if (outcome.kind === "lead") return outcome;
  await recordRelatedCount(outcome.leadId, outcome.relatedCount, deps);
  return outcome;
}

/**
 * Writes the count on the lead investigation, never lowering it: concurrent joins commit
 * their counts in any order, and a redelivery writes the same count again.
 */
async function recordRelatedCount(leadId: string, count: number, deps: GovernedDeps): Promise<void> {
  const committed = await deps.store
    .update(leadId, (current) => {
      if ((current.relatedCount ?? 0) >= count) return undefined;
      return {
        investigation: { ...current, relatedCount: count, updatedAt: deps.now().toISOString() },
        events: [{ type: "related", message: `+ ${count} related finding${count === 1 ? "" : "s"}` }],
      };
    })
    .catch((error: unknown) => {
      // The lead's own delivery is still creating it: Pub/Sub redelivers this one shortly.
      if (error instanceof NotFoundError)
        throw new StorageError(`lead investigation ${leadId} is not written yet`, true, error);
      throw error;
    });
  await publishEvents(deps.bus, committed.events);
}

export type Gate =
  | { kind: "admitted"; seq: number }
  | { kind: "queued"; ahead: number; reason: string; repeat: boolean };

/** Admits the new investigation or queues it; a queued one gets a `queued` event saying how many wait ahead. */
export async function admitInvestigation(inv: Investigation, deps: GovernedDeps): Promise<Gate> {
  const now = deps.now();
  const outcome = await deps.governor.admit(
    queueEntryFor(inv.finding, inv.id, now, ""),
    deps.config.governor,
    now,
  );
  if (outcome.kind === "admitted") return { kind: "admitted", seq: outcome.seq };
  const ahead = await deps.governor.aheadOf(outcome.entry.sortKey);
  if (!outcome.repeat) {
    const committed = await deps.store.update(inv.id, (current) => {
      if (current.waitingSince || current.executionId) return undefined;
      return {
        investigation: { ...current, waitingSince: outcome.entry.queuedAt, updatedAt: now.toISOString() },
        events: [{ type: "queued", message: `Queued: ${ahead} ahead (${outcome.entry.reason})` }],
      };
    });
    await publishEvents(deps.bus, committed.events);
    // Room may have opened between the decision and now; a drain starts whoever is first.
    await drainQueue(deps);
  }
  return { kind: "queued", ahead, reason: outcome.entry.reason, repeat: outcome.repeat };
}

export interface DrainReport {
  released: string[];
  started: string[];
  /** Admitted investigations whose launch failed; the next drain launches them. */
  failed: string[];
}

/**
 * Frees finished investigations' slots (with their tokens), starts queued investigations
 * while the limits allow, and launches admitted ones that never got an execution (a crash
 * between admission and launch). Launching is the caller's (`launch`), so this module does
 * not import ingest.
 */
export async function drainQueue(
  deps: GovernedDeps & { launch?: (id: string, admission: Admission) => Promise<unknown> },
  options: { finished?: string } = {},
): Promise<DrainReport> {
  const report: DrainReport = { released: [], started: [], failed: [] };
  const now = deps.now();
  const state = await deps.governor.state();
  const candidates = new Set(Object.keys(state.running));
  if (options.finished) candidates.add(options.finished);
  const pending: string[] = [];
  for (const id of candidates) {
    const inv = await deps.store.get(id);
    if (inv && TERMINAL_STATUSES.includes(inv.status)) {
      if (await deps.governor.release(id, tokensOf(inv), now)) report.released.push(id);
    } else if (inv && !inv.executionId && id in state.running) pending.push(id);
  }
  // Read the clock again: an admission must never look older than the releases before it.
  const admittedAt = deps.now();
  const admitted = await deps.governor.drain(
    deps.config.governor,
    admittedAt,
    deps.config.governor.maxConcurrent,
  );
  const toLaunch: { id: string; admission: Admission }[] = [
    ...admitted.map((a) => ({
      id: a.investigationId,
      admission: { seq: a.seq, at: admittedAt.toISOString() },
    })),
    ...pending.map((id) => ({
      id,
      admission: { seq: state.running[id]?.seq ?? 0, at: state.running[id]?.admittedAt ?? now.toISOString() },
    })),
  ];
  for (const { id, admission } of toLaunch) {
    try {
      await deps.launch?.(id, admission);
      report.started.push(id);
    } catch (error) {
      report.failed.push(id);
      deps.logger.error("launching a drained investigation failed; the next drain retries", {
        investigationId: id,
        error: errorMessage(error),
      });
    }
  }
  if (report.released.length + report.started.length + report.failed.length > 0)
    deps.logger.info("governor drain", { ...report });
  return report;
}

/** When an investigation was admitted, and its admission number; copied onto the investigation at launch. */
export interface Admission {
  seq: number;
  at: string;
}

/**
 * Asks the `sweep` function to free a finished investigation's slot and start the next
 * queued finding at once, rather than at the next scheduled sweep. Sent by the notifier,
 * which sees every terminal event.
 */
export async function announceFinished(
  bus: Pick<IngestDeps["bus"], "publish">,
  investigationId: string,
): Promise<void> {
  const request: SweepRequest = { kind: "finished", investigationId };
  await bus.publish(TOPICS.sweep, request);
}

import { errorMessage, NotFoundError, StorageError } from "../domain/errors.js";
import type { Finding } from "../domain/finding/finding.js";
import type { FindingPrint } from "../domain/finding/finding-print.js";
import { groupKeys, groupSubject, limitReached, queueEntryFor, usageOf } from "../domain/governor.js";
import {
  GROUPED_LISTED,
  type GroupedFinding,
  type Investigation,
  TERMINAL_STATUSES,
} from "../domain/investigation.js";
import { brainOf } from "../model/brain.js";
import { TOPICS } from "../platform/topics.js";
import type { GovernorStore, GroupOutcome, Release } from "../ports/governor-store.js";
import type { IngestDeps } from "./deps.js";
import { publishEvents } from "./publish.js";
import type { SweepRequest } from "./sweep-request.js";

/**
 * The storm governor's operations (rules in domain/governor.ts, state in a GovernorStore):
 * grouping a finding into a live investigation's group, queueing a new investigation, and
 * draining the queue. Ingest writes only documents of its own finding (its queue entry, its
 * group membership) and asks for a drain; the drain, run by one coalescing drainer in the sweep
 * function at most once a second (app/drain-coalescer.ts), is the only writer of the governor's
 * state document (decision 0039).
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

/** A running lead's thread root shows its count at most this often; a finished lead's at once. */
export const RELATED_REFRESH_MS = 2_000;

/**
 * Meets the finding with a live group of its category and principal or resource, if there
 * is one. A finding whose print (`print`, of its whole canonical notification) equals the
 * lead's is covered by the lead; one differing in any field but its name, times and log entry
 * ids is recorded on the lead ("examined in its own investigation because …") and goes on to
 * its own investigation (ingest does that).
 */
export async function groupFinding(
  finding: Finding,
  findingId: string,
  print: FindingPrint,
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
    groupSubject(finding, print),
    print,
    deps.config.governor.groupWindowMinutes,
    deps.now(),
  );
  if (outcome.kind === "lead") return outcome;
  await refreshRelated(outcome.leadId, deps);
  return outcome;
}

/**
 * Writes the group on the lead investigation (its count, and the first GROUPED_LISTED findings
 * each with how it is examined and, for one examined on its own, that investigation's outcome)
 * with a `related` event: the notifier redraws the thread root, or the verdict card, from it.
 * Not on every join: a storm joins hundreds of findings to one lead within a minute, and the
 * lead's document must not be written faster than Firestore sustains (about once a second), so
 * a running lead is written at most every RELATED_REFRESH_MS. A lead that already finished is
 * written at once (a finding that joined as it finished is on the card too), and so is one
 * whose member investigation just finished (`force`, from the drain).
 */
export async function refreshRelated(
  leadId: string,
  deps: GovernedDeps,
  options: { force?: boolean } = {},
): Promise<void> {
  const lead = await deps.store.get(leadId);
  // The lead's own delivery is still creating it: Pub/Sub redelivers this one shortly.
  if (!lead) throw new StorageError(`lead investigation ${leadId} is not written yet`, true);
  const count = await deps.governor.relatedCount(leadId);
  const quiet = (current: Investigation, now: Date) =>
    !current.relatedNotedAt || now.getTime() - Date.parse(current.relatedNotedAt) >= RELATED_REFRESH_MS;
  const mayWrite = (current: Investigation, now: Date) =>
    options.force === true || TERMINAL_STATUSES.includes(current.status) || quiet(current, now);
  if (!mayWrite(lead, deps.now())) return;
  const grouped = await groupedOf(leadId, deps);
  const changed = (current: Investigation) =>
    count > (current.relatedCount ?? 0) || JSON.stringify(current.grouped ?? []) !== JSON.stringify(grouped);
  if (!changed(lead)) return;
  const committed = await deps.store
    .update(leadId, (current) => {
      const now = deps.now();
      if (!mayWrite(current, now) || !changed(current)) return undefined;
      const total = Math.max(count, current.relatedCount ?? 0);
      return {
        investigation: {
          ...current,
          relatedCount: total,
          relatedNotedAt: now.toISOString(),
          grouped,
          updatedAt: now.toISOString(),
        },
        events: [{ type: "related", message: `+ ${total} related finding${total === 1 ? "" : "s"}` }],
      };
    })
    .catch((error: unknown) => {
      if (error instanceof NotFoundError)
        throw new StorageError(`lead investigation ${leadId} is not written yet`, true, error);
      throw error;
    });
  await publishEvents(deps.bus, committed.events);
}

/** The group's first findings as the card lists them, with each own investigation's outcome. */
async function groupedOf(leadId: string, deps: GovernedDeps): Promise<GroupedFinding[]> {
  const related = await deps.governor.listRelated(leadId, GROUPED_LISTED);
  return Promise.all(
    related.map(async (r): Promise<GroupedFinding> => {
      const own = r.examination === "own" ? await deps.store.get(r.findingId) : undefined;
      return {
        findingId: r.findingId,
        name: r.name,
        eventTime: r.eventTime,
        examination: r.examination,
        reason: r.reason.slice(0, 400),
        ...(r.examination === "own" ? { outcome: outcomeOf(own) } : {}),
      };
    }),
  );
}

function outcomeOf(inv: Investigation | undefined): string {
  if (!inv) return "not started yet";
  if (inv.conclusion)
    return `${inv.status === "concluded" ? "" : `${inv.status}, drafted `}${inv.conclusion.verdict} ${Math.round(inv.conclusion.confidence * 100)}%`;
  return inv.status;
}

/** `repeat`: an earlier delivery queued it already (or a drain has admitted it since). */
export interface QueueOutcome {
  repeat: boolean;
}

/**
 * Puts a new investigation in the queue and asks the drainer to run: every investigation
 * starts through the queue, so admissions never contend on the state document, and the drain
 * order (severity, then age) holds for the first finding of a storm as for the last. Only the
 * drainer launches: an investigation a drain admitted but never launched (its launch failed)
 * is the next drain's, so ingest needs no right to start workflow executions.
 */
export async function queueInvestigation(inv: Investigation, deps: GovernedDeps): Promise<QueueOutcome> {
  const outcome = await deps.governor.enqueue(queueEntryFor(inv.finding, inv.id, deps.now(), ""));
  // Also on a repeat: the first delivery may have died before it asked.
  await requestDrain(deps.bus);
  return { repeat: outcome.kind === "admitted" || outcome.repeat };
}

export interface DrainReport {
  released: string[];
  started: string[];
  /** Admitted investigations whose launch failed; the next drain launches them. */
  failed: string[];
  /** Queued investigations told (a `queued` event) that they wait. */
  announced: string[];
}

/** At most this many queued investigations are told they wait per drain; the next drain tells more. */
const ANNOUNCE_PER_DRAIN = 100;

/**
 * Frees finished investigations' slots (with their tokens, closing the groups they led),
 * starts queued investigations while the limits allow, launches admitted ones that never got
 * an execution (a crash between admission and launch), then tells each investigation still
 * waiting, once, how many wait ahead of it. One state write per drain. Launching is the
 * caller's (`launch`), so this module does not import ingest.
 */
export async function drainQueue(
  deps: GovernedDeps & { launch?: (id: string, admission: Admission) => Promise<unknown> },
  options: { finished?: readonly string[] } = {},
): Promise<DrainReport> {
  const report: DrainReport = { released: [], started: [], failed: [], announced: [] };
  const state = await deps.governor.state();
  const candidates = new Set([...Object.keys(state.running), ...(options.finished ?? [])]);
  const releases: Release[] = [];
  const pending: string[] = [];
  const finishedLeads = new Map<string, string>();
  for (const id of candidates) {
    const inv = await deps.store.get(id);
    if (inv && TERMINAL_STATUSES.includes(inv.status)) {
      releases.push({ investigationId: id, tokens: tokensOf(inv), keys: groupKeys(inv.finding) });
      if (inv.groupLeadId) finishedLeads.set(id, inv.groupLeadId);
    } else if (inv && !inv.executionId && id in state.running) pending.push(id);
  }
  const admittedAt = deps.now();
  const drained = await deps.governor.drain(
    deps.config.governor,
    admittedAt,
    deps.config.governor.maxConcurrent,
    releases,
  );
  report.released = drained.released;
  const toLaunch: { id: string; admission: Admission }[] = [
    ...drained.admitted.map((a) => ({
      id: a.investigationId,
      admission: { seq: a.seq, at: admittedAt.toISOString() },
    })),
    ...pending.map((id) => ({
      id,
      admission: {
        seq: state.running[id]?.seq ?? 0,
        at: state.running[id]?.admittedAt ?? admittedAt.toISOString(),
      },
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
  // A lead finished (its groups are closed now, so its list is final) or a member examined on
  // its own finished: the lead's card shows the whole group with each outcome. Nothing is
  // written when the card already shows it.
  const leads = new Set(
    drained.released.flatMap((id) => {
      const lead = finishedLeads.get(id);
      return lead ? [id, lead] : [id];
    }),
  );
  for (const leadId of leads)
    await refreshRelated(leadId, deps, { force: true }).catch((error: unknown) =>
      deps.logger.warn("the group's card could not be refreshed; the next finish refreshes it", {
        leadId,
        error: errorMessage(error),
      }),
    );
  report.announced = await announceWaiting(deps);
  if (report.released.length + report.started.length + report.failed.length + report.announced.length > 0)
    deps.logger.info("governor drain", { ...report });
  return report;
}

/**
 * Each investigation still in the queue after a drain gets one `queued` event ("Queued: N
 * ahead (limit)"), which the notifier posts in its thread. Told by the drain rather than by
 * ingest, which cannot know whether the next drain starts it at once.
 */
async function announceWaiting(deps: GovernedDeps): Promise<string[]> {
  const waiting = await deps.governor.unannounced(ANNOUNCE_PER_DRAIN);
  if (waiting.length === 0) return [];
  const now = deps.now();
  const state = await deps.governor.state();
  const depth = await deps.governor.queueDepth();
  const why =
    limitReached({ ...usageOf(state, 0, now), waiting: 0 }, deps.config.governor) ??
    `${depth} finding(s) waiting`;
  const told: string[] = [];
  for (const entry of waiting) {
    const ahead = await deps.governor.aheadOf(entry.sortKey);
    const committed = await deps.store.update(entry.investigationId, (current) => {
      if (current.waitingSince || current.executionId) return undefined;
      return {
        investigation: { ...current, waitingSince: entry.queuedAt, updatedAt: now.toISOString() },
        events: [{ type: "queued", message: `Queued: ${ahead} ahead (${why})` }],
      };
    });
    await publishEvents(deps.bus, committed.events);
    await deps.governor.markAnnounced(entry.investigationId);
    told.push(entry.investigationId);
  }
  return told;
}

/** When an investigation was admitted, and its admission number; copied onto the investigation at launch. */
export interface Admission {
  seq: number;
  at: string;
}

/** Asks the sweep function's drainer to run (ingest, after queueing a finding). */
export async function requestDrain(bus: Pick<IngestDeps["bus"], "publish">): Promise<void> {
  const request: SweepRequest = { kind: "drain" };
  await bus.publish(TOPICS.sweep, request);
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

import type { Config } from "../config/config.js";
import { globMatch } from "../config/config.js";
import {
  type Finding,
  findingIocs,
  normalizeNotification,
  parseNotification,
  receivedPayload,
  SEVERITY_RANK,
} from "../domain/finding/finding.js";
import { findingPrint } from "../domain/finding/finding-print.js";
import { type Investigation, investigationIdFor } from "../domain/investigation.js";
import { ZERO_USAGE } from "../domain/results.js";
import type { IngestDeps } from "./deps.js";
import { type Admission, groupFinding, queueInvestigation } from "./governor.js";
import { launchClaimed } from "./launch.js";
import { publishEvents } from "./publish.js";

export type IngestOutcome =
  | { outcome: "started"; investigationId: string; executionId: string }
  | { outcome: "duplicate"; investigationId: string }
  /** In the governor's queue: the drainer starts it (at once when the limits allow). */
  | { outcome: "queued"; investigationId: string; groupLeadId?: string }
  /**
   * Is the running investigation `investigationId`'s finding field for field, but for what
   * identifies an occurrence (decision 0046): covered by it, listed on its card with the reason.
   */
  | { outcome: "grouped"; investigationId: string; reason: string }
  | { outcome: "skipped"; reason: string; findingName: string };

/** What ingest does with a finding, and why, in words fit for a log line or the CLI. */
export interface IngestDecision {
  action: "investigate" | "skip";
  reason: string;
}

/**
 * The ingest policy: ignored categories, mute, state, then severity. A finding without a
 * severity was given one from its hints by the normalizer (finding.severitySource says
 * which); one with neither follows `unspecifiedSeverity`, never the minimum-severity rule,
 * because an unknown severity is not a low one.
 */
export function ingestDecision(finding: Finding, config: Config["ingest"]): IngestDecision {
  const ignored = config.ignoreCategories.find((glob) => globMatch(glob, finding.category));
  if (ignored)
    return { action: "skip", reason: `category "${finding.category}" matches ignore rule "${ignored}"` };
  if (config.skipMuted && finding.mute === "MUTED") return { action: "skip", reason: "the finding is muted" };
  if (config.skipInactive && finding.state !== "ACTIVE") {
    const known = ["INACTIVE", "STATE_UNSPECIFIED"].includes(finding.state);
    return {
      action: "skip",
      reason: known
        ? `the finding state is ${finding.state}, not ACTIVE`
        : `the finding state ${JSON.stringify(finding.state)} is not an SCC state (ACTIVE or INACTIVE, upper case), so it is not ACTIVE`,
    };
  }
  if (finding.severity === "SEVERITY_UNSPECIFIED") {
    const why =
      "the finding has no SCC severity (missing, or not one of CRITICAL, HIGH, MEDIUM, LOW) and carries no severity hint";
    return config.unspecifiedSeverity === "skip"
      ? { action: "skip", reason: `${why}; ingest.unspecifiedSeverity is skip` }
      : { action: "investigate", reason: `${why}; ingest.unspecifiedSeverity is investigate` };
  }
  if (SEVERITY_RANK[finding.severity] < SEVERITY_RANK[config.minimumSeverity])
    return {
      action: "skip",
      reason: `severity ${finding.severity} is below the minimum ${config.minimumSeverity}`,
    };
  const source =
    finding.severitySource && finding.severitySource !== "finding"
      ? ` (severity from ${finding.severitySource})`
      : "";
  return {
    action: "investigate",
    reason: `${finding.state} ${finding.severity} finding at or above the minimum ${config.minimumSeverity}${source}`,
  };
}

/** Why a finding is not investigated, or undefined when it should be. */
export function policySkipReason(finding: Finding, config: Config["ingest"]): string | undefined {
  const decision = ingestDecision(finding, config);
  return decision.action === "skip" ? decision.reason : undefined;
}

/** The queued investigation for a finding: deterministic id, budgets from config. */
export function newInvestigation(
  finding: Finding,
  options: { config: Config; now: Date; modelName: string },
): Investigation {
  const { now } = options;
  const iocs = findingIocs(finding);
  return {
    id: investigationIdFor(finding.name, finding.eventTime),
    status: "queued",
    finding,
    iocValues: [...new Set(iocs.map((i) => i.value))].slice(0, 100),
    counters: { revisions: 0, consecutiveFailures: 0, stepsExecuted: 0, waves: 0, usage: ZERO_USAGE },
    model: options.modelName,
    fellBackToOffline: false,
    eventSeq: 0,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    deadlineAt: new Date(now.getTime() + options.config.agent.totalDeadlineSeconds * 1000).toISOString(),
  };
}

/** A launch claim older than this is considered abandoned (the claimer crashed). */
const LAUNCH_CLAIM_TTL_MS = 5 * 60_000;

/**
 * Turns one Pub/Sub payload into at most one investigation and one workflow execution,
 * however often the same notification is delivered. Malformed payloads throw
 * InvalidInputError (the caller dead-letters them).
 */
export async function ingestNotification(payload: unknown, deps: IngestDeps): Promise<IngestOutcome> {
  const notification = parseNotification(payload);
  const finding = normalizeNotification(notification);
  const decision = ingestDecision(finding, deps.config.ingest);
  if (decision.action === "skip") {
    deps.logger.info("finding skipped by ingest policy", {
      findingName: finding.name,
      reason: decision.reason,
    });
    return { outcome: "skipped", reason: decision.reason, findingName: finding.name };
  }
  if (finding.severitySource !== "finding" || (finding.notes?.length ?? 0) > 0)
    deps.logger.info("finding accepted by ingest policy", {
      findingName: finding.name,
      reason: decision.reason,
      notes: finding.notes ?? [],
    });
  const investigation = newInvestigation(finding, {
    config: deps.config,
    now: deps.now(),
    modelName: deps.modelName,
  });
  const id = investigation.id;
  const governed = deps.governor ? { ...deps, governor: deps.governor } : undefined;
  let groupLeadId: string | undefined;
  if (governed && !(await deps.store.get(id))) {
    const grouped = await groupFinding(finding, id, findingPrint(receivedPayload(notification)), governed);
    if (grouped.kind !== "lead") {
      deps.logger.info("finding met a running investigation's group", {
        findingName: finding.name,
        leadId: grouped.leadId,
        examination: grouped.examination,
        ...(grouped.kind === "joined" ? { reason: grouped.reason } : {}),
        repeat: grouped.kind === "already_joined",
      });
      // The lead's verdict stands only for the lead's own activity; anything else is examined here.
      if (grouped.examination === "covered")
        return {
          outcome: "grouped",
          investigationId: grouped.leadId,
          reason: grouped.kind === "joined" ? grouped.reason : "covered by the lead (a redelivery)",
        };
      groupLeadId = grouped.leadId;
    }
  }
  const created = await deps.store.create({ ...investigation, ...(groupLeadId ? { groupLeadId } : {}) }, [
    {
      type: "created",
      message: `New ${finding.severity} finding "${finding.category}" on ${finding.resource.name}`,
    },
  ]);
  await publishEvents(deps.bus, created.events);
  const current = created.investigation;
  // Only an investigation nobody launched yet is the governor's to queue; a late duplicate of
  // a finished one must not take a slot it would never give back.
  if (governed && current.status === "queued" && !current.executionId) {
    const gate = await queueInvestigation(current, governed);
    deps.logger.info("investigation queued for the governor's drainer", { investigationId: id, ...gate });
    return gate.repeat
      ? { outcome: "duplicate", investigationId: id }
      : {
          outcome: "queued",
          investigationId: id,
          ...(current.groupLeadId ? { groupLeadId: current.groupLeadId } : {}),
        };
  }
  return launchInvestigation(id, deps);
}

/**
 * Starts the investigation's workflow execution once, however many deliveries (or drains)
 * ask: a claim in a transaction lets one caller launch, and a caller after a crash between
 * claim and launch takes over once the claim is stale.
 */
export async function launchInvestigation(
  id: string,
  deps: IngestDeps,
  admission?: Admission,
): Promise<Extract<IngestOutcome, { outcome: "started" | "duplicate" }>> {
  const now = deps.now();
  let claimed = false;
  await deps.store.update(id, (current) => {
    claimed = false;
    if (current.status !== "queued" || current.executionId) return undefined;
    const claimedAt = current.launchClaimedAt ? Date.parse(current.launchClaimedAt) : undefined;
    if (claimedAt !== undefined && now.getTime() - claimedAt < LAUNCH_CLAIM_TTL_MS) return undefined;
    claimed = true;
    const { waitingSince: _waited, ...rest } = current;
    return {
      investigation: {
        ...rest,
        launchClaimedAt: now.toISOString(),
        updatedAt: now.toISOString(),
        ...(admission
          ? {
              admittedAt: admission.at,
              admissionSeq: admission.seq,
              // The clock starts when the investigation does, not while it waited in the queue.
              ...(current.waitingSince
                ? {
                    deadlineAt: new Date(
                      now.getTime() + deps.config.agent.totalDeadlineSeconds * 1000,
                    ).toISOString(),
                  }
                : {}),
            }
          : {}),
      },
    };
  });
  if (!claimed) {
    deps.logger.info("duplicate notification ignored", { investigationId: id });
    return { outcome: "duplicate", investigationId: id };
  }
  const executionId = await launchClaimed(id, deps);
  deps.logger.info("investigation started", { investigationId: id, executionId });
  return { outcome: "started", investigationId: id, executionId };
}

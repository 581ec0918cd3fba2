import type { Config } from "../config/config.js";
import { globMatch } from "../config/config.js";
import {
  type Finding,
  findingIocs,
  normalizeNotification,
  parseNotification,
  SEVERITY_RANK,
} from "../domain/finding.js";
import { type Investigation, investigationIdFor } from "../domain/investigation.js";
import { ZERO_USAGE } from "../domain/results.js";
import type { IngestDeps } from "./deps.js";
import { publishEvents } from "./publish.js";

export type IngestOutcome =
  | { outcome: "started"; investigationId: string; executionId: string }
  | { outcome: "duplicate"; investigationId: string }
  | { outcome: "skipped"; reason: string; findingName: string };

/** Why a finding is not investigated, or undefined when it should be. */
export function policySkipReason(finding: Finding, config: Config["ingest"]): string | undefined {
  const ignored = config.ignoreCategories.find((glob) => globMatch(glob, finding.category));
  if (ignored) return `category "${finding.category}" matches ignore rule "${ignored}"`;
  if (SEVERITY_RANK[finding.severity] < SEVERITY_RANK[config.minimumSeverity]) {
    // A missing or unrecognised severity is normalized to SEVERITY_UNSPECIFIED; say so.
    const which =
      finding.severity === "SEVERITY_UNSPECIFIED"
        ? "severity SEVERITY_UNSPECIFIED (missing, or not an SCC severity: CRITICAL, HIGH, MEDIUM, LOW) is"
        : `severity ${finding.severity} is`;
    return `${which} below the minimum ${config.minimumSeverity}`;
  }
  if (config.skipMuted && finding.mute === "MUTED") return "the finding is muted";
  if (config.skipInactive && finding.state !== "ACTIVE") {
    const known = ["INACTIVE", "STATE_UNSPECIFIED"].includes(finding.state);
    return known
      ? `the finding state is ${finding.state}, not ACTIVE`
      : `the finding state ${JSON.stringify(finding.state)} is not an SCC state (ACTIVE or INACTIVE, upper case), so it is not ACTIVE`;
  }
  return undefined;
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
  const skip = policySkipReason(finding, deps.config.ingest);
  if (skip) {
    deps.logger.info("finding skipped by ingest policy", { findingName: finding.name, reason: skip });
    return { outcome: "skipped", reason: skip, findingName: finding.name };
  }
  const investigation = newInvestigation(finding, {
    config: deps.config,
    now: deps.now(),
    modelName: deps.modelName,
  });
  const id = investigation.id;
  const now = deps.now();
  const created = await deps.store.create(investigation, [
    {
      type: "created",
      message: `New ${finding.severity} finding "${finding.category}" on ${finding.resource.name}`,
    },
  ]);
  await publishEvents(deps.bus, created.events);

  // Claim the launch in a transaction: only one delivery starts the workflow, and a
  // delivery after a crash between create and launch still starts it.
  let claimed = false;
  await deps.store.update(id, (current) => {
    claimed = false;
    if (current.status !== "queued" || current.executionId) return undefined;
    const claimedAt = current.launchClaimedAt ? Date.parse(current.launchClaimedAt) : undefined;
    if (claimedAt !== undefined && now.getTime() - claimedAt < LAUNCH_CLAIM_TTL_MS) return undefined;
    claimed = true;
    return {
      investigation: { ...current, launchClaimedAt: now.toISOString(), updatedAt: now.toISOString() },
    };
  });
  if (!claimed) {
    deps.logger.info("duplicate notification ignored", { investigationId: id, findingName: finding.name });
    return { outcome: "duplicate", investigationId: id };
  }
  let executionId: string;
  try {
    ({ executionId } = await deps.launcher.launch(id));
  } catch (error) {
    // Release the claim so the redelivery Pub/Sub will make can launch at once.
    await deps.store.update(id, (current) => {
      const { launchClaimedAt: _released, ...rest } = current;
      return { investigation: { ...rest, updatedAt: deps.now().toISOString() } };
    });
    throw error;
  }
  await deps.store.update(id, (current) => ({
    investigation: { ...current, executionId, updatedAt: deps.now().toISOString() },
  }));
  deps.logger.info("investigation started", { investigationId: id, executionId, category: finding.category });
  return { outcome: "started", investigationId: id, executionId };
}

import type { Config } from "../../../../functions/src/config/config.js";
import {
  findingIocs,
  normalizeNotification,
  parseNotification,
} from "../../../../functions/src/domain/finding/finding.js";
import { type Investigation, investigationIdFor } from "../../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../../functions/src/domain/json.js";
import { ZERO_USAGE } from "../../../../functions/src/domain/results.js";

export interface Variant {
  notification: JsonObject;
  id: string;
  name: string;
}

/** The notification with its finding renamed, i.e. another finding with its own investigation. */
export function variantOf(notification: JsonObject, suffix: string): Variant {
  const copy = structuredClone(notification) as JsonObject & { finding: { name: string } };
  copy.finding.name = `${copy.finding.name}${suffix}`;
  const finding = normalizeNotification(parseNotification(copy));
  return { notification: copy, id: investigationIdFor(finding.name, finding.eventTime), name: finding.name };
}

/**
 * The queued investigation ingest would create for a notification, for tests that drive the
 * operations in process (no workflow launch). Mirrors app/ingest.ts on purpose: the
 * operations must accept exactly what ingest writes.
 */
export function queuedInvestigation(
  notification: unknown,
  config: Config,
  now: Date,
  overrides: Partial<Investigation> = {},
): Investigation {
  const finding = normalizeNotification(parseNotification(notification));
  const iocs = findingIocs(finding);
  return {
    id: investigationIdFor(finding.name, finding.eventTime),
    status: "queued",
    finding,
    iocValues: [...new Set(iocs.map((i) => i.value))].slice(0, 100),
    counters: { revisions: 0, consecutiveFailures: 0, stepsExecuted: 0, waves: 0, usage: ZERO_USAGE },
    model: "offline-playbook",
    fellBackToOffline: false,
    eventSeq: 0,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    deadlineAt: new Date(now.getTime() + config.agent.totalDeadlineSeconds * 1000).toISOString(),
    ...overrides,
  };
}

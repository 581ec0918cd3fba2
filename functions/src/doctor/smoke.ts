import { normalizeNotification, parseNotification } from "../domain/finding/finding.js";
import { investigationIdFor, TERMINAL_STATUSES } from "../domain/investigation.js";
import type { JsonObject } from "../domain/json.js";
import { TOPICS } from "../platform/topics.js";
import type { EventBus } from "../ports/event-bus.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import type { CheckResult } from "./checks.js";

export interface SmokeDeps {
  bus: EventBus;
  store: Pick<InvestigationStore, "get">;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
}

export interface SmokeOptions {
  projectId: string;
  organizationId: string;
  timeoutMs: number;
  pollMs?: number;
}

/**
 * A synthetic SCC v2 notification, labelled as a test in its description and pointing at the
 * ferret project itself, shaped as docs/deploy.md step 10 shows.
 */
export function syntheticNotification(opts: {
  projectId: string;
  organizationId: string;
  at: Date;
}): JsonObject {
  const time = opts.at.toISOString().replace(/\.\d{3}Z$/, "Z");
  const source = `organizations/${opts.organizationId}/sources/0000000000000000000/locations/global`;
  const resource = `//cloudresourcemanager.googleapis.com/projects/${opts.projectId}`;
  return {
    notificationConfigName: `organizations/${opts.organizationId}/locations/global/notificationConfigs/ferret-doctor`,
    finding: {
      name: `${source}/findings/ferretdoctor${opts.at.getTime()}`,
      parent: source,
      resourceName: resource,
      state: "ACTIVE",
      category: "Persistence: IAM Anomalous Grant",
      description: "ferret doctor: synthetic finding, no real activity behind it.",
      severity: "HIGH",
      findingClass: "THREAT",
      mute: "UNMUTED",
      eventTime: time,
      createTime: time,
      access: { principalEmail: "ferret-doctor@example.com", methodName: "SetIamPolicy" },
    },
    resource: {
      name: resource,
      displayName: opts.projectId,
      type: "google.cloud.resourcemanager.Project",
      cloudProvider: "GOOGLE_CLOUD_PLATFORM",
    },
  };
}

/** Publishes a synthetic finding to scc-findings and waits for its investigation to end. */
export async function smokeTest(deps: SmokeDeps, opts: SmokeOptions): Promise<CheckResult> {
  const check = "synthetic finding";
  const notification = syntheticNotification({ ...opts, at: deps.now() });
  const finding = normalizeNotification(parseNotification(notification));
  const id = investigationIdFor(finding.name, finding.eventTime);
  await deps.bus.publish(TOPICS.findings, notification);
  const started = deps.now().getTime();
  let seen = false;
  while (deps.now().getTime() - started < opts.timeoutMs) {
    const inv = await deps.store.get(id);
    seen ||= inv !== undefined;
    if (inv && TERMINAL_STATUSES.includes(inv.status)) {
      const verdict = inv.conclusion ? `, verdict ${inv.conclusion.verdict}` : "";
      if (inv.status === "failed")
        return {
          check,
          ok: false,
          lines: [`investigation ${id} failed: ${inv.reason ?? "no reason recorded"}`],
          fixes: [
            "gcloud workflows executions list ferret-investigate, then describe the failed execution; the reason names the function and error",
          ],
        };
      return { check, ok: true, lines: [`investigation ${id} ended ${inv.status}${verdict}`], fixes: [] };
    }
    await deps.sleep(opts.pollMs ?? 2_000);
  }
  const seconds = Math.round(opts.timeoutMs / 1000);
  return seen
    ? {
        check,
        ok: false,
        lines: [`investigation ${id} did not finish within ${seconds} s`],
        fixes: ["gcloud workflows executions list ferret-investigate; the sweep marks it needs_human later"],
      }
    : {
        check,
        ok: false,
        lines: [`no investigation ${id} appeared within ${seconds} s: ingest did not record the finding`],
        fixes: [
          "gcloud functions logs read ferret-ingest; check the scc-findings push subscription (401/403: the push identity lacks run.invoker)",
        ],
      };
}

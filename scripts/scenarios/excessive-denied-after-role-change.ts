import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { onEarlierDays, workdays } from "./habit.js";
import { auditor, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-12-02T15:31:12.640Z";
const CI_AGENT = "google-cloud-sdk gcloud/501.0.0 command/gcloud.compute.instances.update";
const TF_AGENT =
  "Terraform/1.9.8 (+https://www.terraform.io) Terraform-Plugin-SDK/2.33.0 terraform-provider-google/6.12.0";

/**
 * Event Threat Detection sees the CI deployer denied dozens of calls. An hour earlier Terraform,
 * from the CI runner, removed roles/compute.admin from the deployer under a least-privilege
 * change; the denied calls are the deploy pipeline's usual ones, from its usual runner and
 * client, on its usual afternoon. A permission change the pipeline has not caught up with.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const web = [1, 2, 3].map((n) => makeVm(rng, { name: `app-${n}`, role: "web", host: 20 + n }));
  const env = makeEnvironment(rng, {
    projectId: "juniper-apps-prod",
    domain: "juniperapps.io",
    vms: web,
    buckets: ["juniper-releases"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));
  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const ci = env.serviceAccounts.ci;
  const deploy = (time: number, vm: (typeof web)[number], denied: boolean) =>
    call(time, {
      principal: ci,
      callerIp: env.ciIps[0],
      userAgent: CI_AGENT,
      serviceName: "compute.googleapis.com",
      methodName: "v1.compute.instances.setMetadata",
      resourceName: `projects/${env.project.id}/zones/${vm.zone}/instances/${vm.name}`,
      resource: { type: "gce_instance", labels: { instance_id: vm.id, zone: vm.zone } },
      permission: "compute.instances.setMetadata",
      ...(denied ? { status: { code: 7, message: "PERMISSION_DENIED" } } : {}),
    });
  onEarlierDays(signal, T, workdays(30), (time) => {
    for (const [i, vm] of web.entries()) deploy(time + i * 30_000, vm, false);
  });
  call(T - 62 * MINUTE, {
    principal: env.serviceAccounts.terraform,
    callerIp: env.ciIps[1],
    userAgent: TF_AGENT,
    serviceName: "cloudresourcemanager.googleapis.com",
    methodName: "SetIamPolicy",
    resourceName: `projects/${env.project.id}`,
    resource: { type: "project", labels: {} },
    permission: "resourcemanager.projects.setIamPolicy",
    request: {
      "@type": "type.googleapis.com/google.iam.v1.SetIamPolicyRequest",
      resource: env.project.id,
      policy: { etag: "BwYk3", version: 3 },
      updateMask: "bindings,etag",
      justification: "CHG-3310 least privilege for the deploy pipeline",
    },
    bindingDeltas: [
      { action: "REMOVE", role: "roles/compute.admin", member: `serviceAccount:${ci}` },
      { action: "ADD", role: "roles/compute.instanceAdmin.v1", member: `serviceAccount:${ci}` },
    ],
  });
  for (let i = 0; i < 42; i++) deploy(T - 4 * MINUTE + i * 9_000, web[i % 3] ?? web[0]!, true);

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Initial Access: Excessive Permission Denied Actions",
    findingClass: "THREAT",
    severity: "MEDIUM",
    eventTime: EVENT_TIME,
    resource: {
      name: `//cloudresourcemanager.googleapis.com/projects/${env.project.number}`,
      type: "google.cloud.resourcemanager.Project",
      displayName: env.project.id,
    },
    description:
      "A principal repeatedly triggered permission denied errors across multiple methods and services.",
    finding: {
      sourceProperties: {
        detectionCategory: { ruleName: "excessive_permission_denied", indicator: "audit_log" },
        properties: { principalEmail: ci, deniedCount: 42, callerIp: env.ciIps[0] },
      },
      access: {
        principalEmail: ci,
        callerIp: env.ciIps[0],
        userAgent: CI_AGENT,
        methodName: "v1.compute.instances.setMetadata",
      },
      mitreAttack: { primaryTactic: "INITIAL_ACCESS", primaryTechniques: ["VALID_ACCOUNTS"] },
    },
  });
  const intel = new StixBundle(rng.fork("intel"), "2025-11-20T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set(env.ciIps));

  const expected: Expected = {
    scenario: "excessive-denied-after-role-change",
    category: "Initial Access: Excessive Permission Denied Actions",
    verdict: "benign",
    acceptableVerdicts: ["benign", "false_positive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "role-removed",
        description: "Terraform removed roles/compute.admin from the deployer an hour earlier",
        anyOf: ["roles/compute.admin", "CHG-3310"],
      },
      {
        id: "habitual-caller",
        description: "the denied calls come from the deployer's usual runner and client",
        anyOf: [env.ciIps[0] ?? ""],
      },
    ],
    optionalEvidence: [],
    mitreTechniques: [],
    probes: [
      {
        runbook: "iam_policy_changes",
        params: {},
        window: { hoursBefore: 3, hoursAfter: 1 },
        expect: ["roles/compute.admin", "REMOVE", ci],
        why: "the least-privilege change that removed the deployer's role",
      },
      {
        runbook: "principal_history",
        params: { principal: ci, recent: new Date(T - 6 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 31, hoursAfter: 2 },
        expect: [env.ciIps[0] ?? "", "v1.compute.instances.setMetadata"],
        why: "the same calls from the same runner on most earlier days",
      },
    ],
    story:
      `Terraform removed roles/compute.admin from ${ci} (CHG-3310, least privilege) an hour before; the deploy pipeline's usual setMetadata calls, ` +
      `from its usual runner ${env.ciIps[0]} with gcloud, are now denied 42 times. A permission change, not an intruder.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const excessiveDeniedAfterRoleChange: ScenarioDefinition = {
  name: "excessive-denied-after-role-change",
  seed: "ferret/excessive-denied-after-role-change/v1",
  build,
};

import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { onEarlierDays } from "./habit.js";
import { type AuditCall, auditor, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-11-18T19:52:40.117Z";
const ROGUE_IP = "192.0.2.141";
const ROGUE_AGENT = "curl/8.4.0";
const JOB_AGENT = "google-api-python-client/2.149.0 gl-python/3.12.7 report-builder/3.2";
const KEY_ID = "4f1e9a7c2b6d8e0f1a3c5e7b9d2f4a6c8e0b1d3f";

/**
 * Event Threat Detection sees a service account read its own IAM policy. The account's key
 * runs the nightly report job from the CI runner with the Python client on every day of the
 * month; at the event the same key acts from an address and with a client it never used,
 * reads its own and the project's policy, then mints a second key and a new service account.
 * The credential is in other hands: same key, new network and client, persistence next.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [makeVm(rng, { name: "reports-1", role: "etl", host: 14 })];
  const env = makeEnvironment(rng, {
    projectId: "quill-media-prod",
    domain: "quillmedia.com",
    vms,
    buckets: ["quill-media-reports"],
  });
  const sa = `report-builder@${env.project.id}.iam.gserviceaccount.com`;
  const keyName = `//iam.googleapis.com/projects/${env.project.id}/serviceAccounts/${sa}/keys/${KEY_ID}`;
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const asKey = (time: number, spec: Omit<AuditCall, "principal" | "keyName">) =>
    call(time, { principal: sa, keyName, ...spec });
  const bucket = "quill-media-reports";
  const nightly = (time: number) => {
    for (let i = 0; i < 3; i++)
      asKey(time + i * 9_000, {
        table: TABLES.dataAccess,
        callerIp: env.ciIps[1],
        userAgent: JOB_AGENT,
        serviceName: "storage.googleapis.com",
        methodName: "storage.objects.create",
        resourceName: `projects/_/buckets/${bucket}/objects/daily/${new Date(time).toISOString().slice(0, 10)}/part-${i}.csv`,
        resource: { type: "gcs_bucket", labels: { bucket_name: bucket, location: "us-central1" } },
        permission: "storage.objects.create",
      });
  };
  onEarlierDays(
    signal,
    T - 17 * HOUR,
    Array.from({ length: 30 }, (_, i) => i),
    nightly,
  );
  const project = { type: "project", labels: {} };
  asKey(T, {
    table: TABLES.dataAccess,
    callerIp: ROGUE_IP,
    userAgent: ROGUE_AGENT,
    serviceName: "iam.googleapis.com",
    methodName: "google.iam.admin.v1.IAM.GetIamPolicy",
    resourceName: `projects/${env.project.id}/serviceAccounts/${sa}`,
    resource: { type: "service_account", labels: { email_id: sa } },
    permission: "iam.serviceAccounts.getIamPolicy",
  });
  asKey(T + 20_000, {
    table: TABLES.dataAccess,
    callerIp: ROGUE_IP,
    userAgent: ROGUE_AGENT,
    serviceName: "cloudresourcemanager.googleapis.com",
    methodName: "GetIamPolicy",
    resourceName: `projects/${env.project.id}`,
    resource: project,
    permission: "resourcemanager.projects.getIamPolicy",
  });
  asKey(T + 3 * MINUTE, {
    callerIp: ROGUE_IP,
    userAgent: ROGUE_AGENT,
    serviceName: "iam.googleapis.com",
    methodName: "google.iam.admin.v1.CreateServiceAccountKey",
    resourceName: `projects/-/serviceAccounts/${sa}`,
    resource: { type: "service_account", labels: { email_id: sa } },
    permission: "iam.serviceAccountKeys.create",
    response: { name: `projects/${env.project.id}/serviceAccounts/${sa}/keys/9c0d${signal.hex(36)}` },
  });
  asKey(T + 5 * MINUTE, {
    callerIp: ROGUE_IP,
    userAgent: ROGUE_AGENT,
    serviceName: "iam.googleapis.com",
    methodName: "google.iam.admin.v1.CreateServiceAccount",
    resourceName: `projects/${env.project.id}`,
    resource: { type: "service_account", labels: {} },
    permission: "iam.serviceAccounts.create",
    request: { account_id: "sync-helper", service_account: { display_name: "sync helper" } },
    response: { email: `sync-helper@${env.project.id}.iam.gserviceaccount.com` },
  });

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Discovery: Service Account Self-Investigation",
    findingClass: "THREAT",
    severity: "LOW",
    eventTime: EVENT_TIME,
    resource: {
      name: `//cloudresourcemanager.googleapis.com/projects/${env.project.number}`,
      type: "google.cloud.resourcemanager.Project",
      displayName: env.project.id,
    },
    description:
      "A service account retrieved its own IAM policy, which can be a step in discovering its permissions.",
    finding: {
      sourceProperties: {
        detectionCategory: {
          technique: "discovery",
          indicator: "audit_log",
          ruleName: "iam_anomalous_behavior",
          subRuleName: "service_account_gets_own_iam_policy",
        },
        detectionPriority: "LOW",
        properties: {
          serviceAccountGetsOwnIamPolicy: {
            principalEmail: sa,
            projectId: env.project.id,
            callerIp: ROGUE_IP,
            callerUserAgent: ROGUE_AGENT,
            rawUserAgent: ROGUE_AGENT,
          },
        },
      },
      access: {
        principalEmail: sa,
        callerIp: ROGUE_IP,
        userAgent: ROGUE_AGENT,
        serviceAccountKeyName: keyName,
      },
      mitreAttack: {
        primaryTactic: "DISCOVERY",
        primaryTechniques: ["PERMISSION_GROUPS_DISCOVERY", "CLOUD_GROUPS"],
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-11-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set([ROGUE_IP]));

  const expected: Expected = {
    scenario: "sa-self-investigation-new-network",
    category: "Discovery: Service Account Self-Investigation",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [{ type: "ip", value: ROGUE_IP, why: "the first-seen network the key acted from" }],
    requiredEvidence: [
      {
        id: "same-key-new-network",
        description: `key ${KEY_ID.slice(0, 8)}… acts from ${ROGUE_IP} with ${ROGUE_AGENT}; every earlier day from the CI runner with the Python client`,
        anyOf: [ROGUE_AGENT, "first seen", "first-seen"],
      },
      {
        id: "created-next",
        description: "a second key and a new service account right after",
        anyOf: ["CreateServiceAccountKey", "CreateServiceAccount", "sync-helper"],
      },
    ],
    optionalEvidence: [{ id: "own-policy", description: "read its own policy", anyOf: ["GetIamPolicy"] }],
    mitreTechniques: ["T1069.003", "T1098.001"],
    probes: [
      {
        runbook: "service_account_key_activity",
        params: { service_account: sa },
        window: { hoursBefore: 24, hoursAfter: 2 },
        expect: [KEY_ID, ROGUE_IP, env.ciIps[1] ?? "", "CreateServiceAccountKey"],
        why: "the same key from the runner and from the new address, and the key it minted",
      },
      {
        runbook: "principal_history",
        params: { principal: sa, recent: new Date(T - 6 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 31, hoursAfter: 2 },
        expect: [ROGUE_IP, ROGUE_AGENT, JOB_AGENT],
        why: "a month of one address and client; the new ones appear only at the event",
      },
    ],
    story:
      `${sa}'s key ${KEY_ID.slice(0, 8)}…, used every night from the CI runner ${env.ciIps[1]} by the report job, acted at 19:52 UTC from ${ROGUE_IP} with ${ROGUE_AGENT}: ` +
      "it read its own IAM policy and the project's, then created a second key and a service account sync-helper. Stolen credential, discovery, persistence.",
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const saSelfInvestigationNewNetwork: ScenarioDefinition = {
  name: "sa-self-investigation-new-network",
  seed: "ferret/sa-self-investigation-new-network/v1",
  build,
};

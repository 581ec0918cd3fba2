import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { onEarlierDays, workdays } from "./habit.js";
import { auditor, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-10-28T00:28:14.000Z";
const CHANGE_TIME = "2025-10-27T23:41:05.000Z";
const OPERATOR = "ops.kline@harbor-analytics.com";
const OPERATOR_IP = "198.51.100.23";
const OPERATOR_AGENT = "google-cloud-sdk gcloud/497.0.0 command/gcloud.projects.set-iam-policy";
const EXPORTS = "harbor-customer-exports";

/**
 * Security Health Analytics reports that audit logging is off on the project. Forty-seven
 * minutes earlier an operator account, from an address it had never used (its month is the
 * office), removed the Data Access audit logs of Cloud Storage; the customer-exports bucket,
 * read every ten minutes for a day, has no data-access row after the change. The activity's
 * own logs stopping is the evidence: the change to what is logged, and who made it.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const C = Date.parse(CHANGE_TIME);
  const vms = [
    makeVm(rng, { name: "etl-worker-1", role: "etl", host: 12 }),
    makeVm(rng, { name: "etl-worker-2", role: "etl", host: 13 }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "harbor-analytics-prod",
    domain: "harbor-analytics.com",
    vms,
    buckets: ["harbor-raw-landing"],
    users: ["ops.kline", "maya.chen", "tom.reyes"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  // The exports job reads the bucket every ten minutes, until the Data Access logs are switched off.
  for (let t = T - 20 * HOUR; t < C; t += 10 * MINUTE + signal.int(-40, 40) * 1_000) {
    const object = `exports/customers-${new Date(t).toISOString().slice(0, 13)}.csv.gz`;
    call(t, {
      table: TABLES.dataAccess,
      principal: env.serviceAccounts.workload,
      callerIp: signal.pick(vms).ip,
      userAgent: "gcloud-python/2.18.0 gl-python/3.11.2 grpc/1.62.1 gax/2.19.0",
      serviceName: "storage.googleapis.com",
      methodName: "storage.objects.get",
      resourceName: `projects/_/buckets/${EXPORTS}/objects/${object}`,
      resource: { type: "gcs_bucket", labels: { bucket_name: EXPORTS, location: "us-central1" } },
      permission: "storage.objects.get",
    });
  }
  onEarlierDays(signal, C + 10 * HOUR, workdays(30), (time) =>
    call(time, {
      principal: OPERATOR,
      callerIp: signal.pick(env.officeIps),
      userAgent: "google-cloud-sdk gcloud/497.0.0 command/gcloud.compute.instances.list",
      serviceName: "compute.googleapis.com",
      methodName: "v1.compute.instances.setLabels",
      resourceName: `projects/${env.project.id}/zones/us-central1-a/instances/${signal.pick(vms).name}`,
      resource: { type: "gce_instance", labels: { zone: "us-central1-a" } },
      permission: "compute.instances.setLabels",
    }),
  );
  const projectResource = { type: "project", labels: {} };
  call(C, {
    principal: OPERATOR,
    callerIp: OPERATOR_IP,
    userAgent: OPERATOR_AGENT,
    serviceName: "cloudresourcemanager.googleapis.com",
    methodName: "SetIamPolicy",
    resourceName: `projects/${env.project.id}`,
    resource: projectResource,
    permission: "resourcemanager.projects.setIamPolicy",
    request: {
      "@type": "type.googleapis.com/google.iam.v1.SetIamPolicyRequest",
      resource: env.project.id,
      updateMask: "auditConfigs,etag",
      policy: {
        auditConfigs: [{ service: "iam.googleapis.com", auditLogConfigs: [{ logType: "ADMIN_READ" }] }],
      },
    },
    auditConfigDeltas: [
      { action: "REMOVE", service: "storage.googleapis.com", logType: "DATA_READ" },
      { action: "REMOVE", service: "storage.googleapis.com", logType: "DATA_WRITE" },
    ],
  });

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "securityHealthAnalytics",
    category: "AUDIT_LOGGING_DISABLED",
    findingClass: "MISCONFIGURATION",
    severity: "LOW",
    eventTime: EVENT_TIME,
    resource: {
      name: `//cloudresourcemanager.googleapis.com/projects/${env.project.number}`,
      type: "google.cloud.resourcemanager.Project",
      displayName: env.project.id,
    },
    description: "Cloud Audit Logging is not configured for all services and all log types.",
    externalUri: `https://console.cloud.google.com/iam-admin/audit/allservices?project=${env.project.id}`,
    finding: {
      sourceProperties: {
        ReactivationCount: 0,
        SeverityLevel: "Low",
        ProjectId: env.project.id,
        ScannerName: "LOGGING_SCANNER",
        ScanRunId: EVENT_TIME,
        Explanation:
          "You should enable Cloud Audit Logging for all services, to track all Admin activities including read and write access to user data.",
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-10-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-07-01T00:00:00.000Z", new Set([OPERATOR_IP]));

  const expected: Expected = {
    scenario: "audit-logging-disabled",
    category: "AUDIT_LOGGING_DISABLED",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive", "inconclusive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "logging-change",
        description: `${OPERATOR} removed the Storage Data Access audit logs from ${OPERATOR_IP} at ${CHANGE_TIME.slice(11, 16)}`,
        anyOf: [OPERATOR_IP, "auditConfig"],
      },
      {
        id: "logs-stop",
        description: `${EXPORTS} reads, logged every ten minutes, stop at the change`,
        anyOf: [EXPORTS],
      },
    ],
    optionalEvidence: [{ id: "operator", description: "the operator", anyOf: [OPERATOR] }],
    mitreTechniques: ["T1562.008"],
    probes: [
      {
        runbook: "resource_activity",
        params: { resource: `projects/${env.project.id}` },
        window: { hoursBefore: 2, hoursAfter: 1 },
        expect: ["SetIamPolicy", OPERATOR, OPERATOR_IP],
        why: "the change to the project's audit configuration, its author and address",
      },
      {
        runbook: "logging_config_changes",
        params: {},
        window: { hoursBefore: 2, hoursAfter: 1 },
        expect: ["storage.googleapis.com", "DATA_READ", OPERATOR, OPERATOR_IP],
        why: "the change to what is logged, its author and address",
      },
      {
        runbook: "principal_history",
        params: { principal: OPERATOR, recent: new Date(T - 6 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 31, hoursAfter: 2 },
        expect: [OPERATOR_IP, env.officeIps[0] ?? ""],
        why: "the operator's month is the office; the change came from a new address",
      },
      {
        runbook: "bucket_data_access",
        params: { bucket: EXPORTS },
        window: { hoursBefore: 20, hoursAfter: 5 },
        expect: ["storage.objects.get", CHANGE_TIME.slice(0, 14)],
        why: "the bucket's reads, last seen right before the change",
      },
    ],
    story:
      `At ${CHANGE_TIME.slice(11, 16)} UTC ${OPERATOR}, from ${OPERATOR_IP} (its month is the office addresses), removed the DATA_READ and DATA_WRITE audit logs of Cloud Storage. ` +
      `Reads of ${EXPORTS}, logged every ten minutes for a day, stop at that minute: whatever touched the customer exports since is unlogged. The change itself is the evidence.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const auditLoggingDisabled: ScenarioDefinition = {
  name: "audit-logging-disabled",
  seed: "ferret/audit-logging-disabled/v1",
  build,
};

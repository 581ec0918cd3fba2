import { makeEnvironment, makeVm, serviceAccount } from "./environment.js";
import type { Expected } from "./expected.js";
import { LogBook } from "./log-book.js";
import { auditEntry, TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const EVENT_TIME = "2025-10-03T09:47:33.118Z";
const TOR_IP = "192.0.2.200";
const BACKUP_SERVER_IP = "34.118.12.50";
const EXPORTS = "acme-customer-exports";
const TOR_AGENT = "python-requests/2.32.3 google-auth/2.29.0";
const BACKUP_AGENT = "rclone/v1.66.0";

/**
 * The nightly backup job's service-account key leaks. Hours after the job's usual run,
 * someone on Tor uses the key to list and download the customer export bucket, mints a
 * second key for the account and tries (and fails) to change the project policy. Event
 * Threat Detection flags the key creation from an anonymizing proxy.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, { name: "etl-worker-1", role: "etl", host: 12 }),
    makeVm(rng, { name: "etl-worker-2", role: "etl", host: 13 }),
    makeVm(rng, { name: "db-replica-1", role: "db", host: 30 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.70.11.2" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-data-prod",
    domain: "acme-data.io",
    vms,
    buckets: [EXPORTS, "acme-analytics-raw"],
  });
  const { project } = env;
  const backup = serviceAccount("backup-exporter", project);
  const keyId = rng.hex(40);
  const keyName = `//iam.googleapis.com/projects/${project.id}/serviceAccounts/${backup}/keys/${keyId}`;
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 12 * HOUR, end: T + 2 * HOUR }, rng.fork("noise"), {
    flows: 1500,
    dns: 700,
  });

  const signal = rng.fork("signal");
  const bucketResource = { type: "gcs_bucket", labels: { bucket_name: EXPORTS, location: "us" } };
  const exportObjects = Array.from(
    { length: 140 },
    (_, i) =>
      `exports/customers/2025-09-${String((i % 30) + 1).padStart(2, "0")}/part-${String(i).padStart(4, "0")}.csv.gz`,
  );

  // The nightly run at 01:00 from the on-premises backup server, as every night.
  const nightly = T - (T % (24 * HOUR)) + HOUR;
  book.add(
    TABLES.dataAccess,
    auditEntry(signal, {
      table: TABLES.dataAccess,
      project,
      time: nightly,
      serviceName: "storage.googleapis.com",
      methodName: "storage.objects.list",
      resourceName: `projects/_/buckets/${EXPORTS}`,
      resource: bucketResource,
      principal: backup,
      callerIp: BACKUP_SERVER_IP,
      userAgent: BACKUP_AGENT,
      keyName,
      permission: "storage.objects.list",
    }),
  );
  for (const [i, object] of exportObjects.slice(110).entries()) {
    book.add(
      TABLES.dataAccess,
      auditEntry(signal, {
        table: TABLES.dataAccess,
        project,
        time: nightly + 20_000 + i * signal.int(3_000, 9_000),
        serviceName: "storage.googleapis.com",
        methodName: "storage.objects.get",
        resourceName: `projects/_/buckets/${EXPORTS}/objects/${object}`,
        resource: bucketResource,
        principal: backup,
        callerIp: BACKUP_SERVER_IP,
        userAgent: BACKUP_AGENT,
        keyName,
        permission: "storage.objects.get",
      }),
    );
  }

  // The key on Tor: enumerate, download everything, mint a key, try to escalate.
  const start = T - 11 * MINUTE;
  const call = (
    time: number,
    table: typeof TABLES.activity | typeof TABLES.dataAccess,
    spec: {
      serviceName: string;
      methodName: string;
      resourceName: string;
      resource: { type: string; labels: Record<string, string> };
      permission: string;
      status?: { code: number; message: string };
      response?: Record<string, unknown>;
      request?: Record<string, unknown>;
    },
  ) =>
    book.add(
      table,
      auditEntry(signal, {
        table,
        project,
        time,
        principal: backup,
        callerIp: TOR_IP,
        userAgent: TOR_AGENT,
        keyName,
        ...spec,
      }),
    );
  call(start, TABLES.dataAccess, {
    serviceName: "storage.googleapis.com",
    methodName: "storage.buckets.list",
    resourceName: "projects/_/buckets",
    resource: { type: "gcs_bucket", labels: {} },
    permission: "storage.buckets.list",
  });
  call(start + 40_000, TABLES.dataAccess, {
    serviceName: "storage.googleapis.com",
    methodName: "storage.objects.list",
    resourceName: `projects/_/buckets/${EXPORTS}`,
    resource: bucketResource,
    permission: "storage.objects.list",
  });
  for (const [i, object] of exportObjects.entries()) {
    call(start + 60_000 + i * signal.int(2_500, 4_000), TABLES.dataAccess, {
      serviceName: "storage.googleapis.com",
      methodName: "storage.objects.get",
      resourceName: `projects/_/buckets/${EXPORTS}/objects/${object}`,
      resource: bucketResource,
      permission: "storage.objects.get",
    });
  }
  const newKeyId = signal.hex(40);
  call(T, TABLES.activity, {
    serviceName: "iam.googleapis.com",
    methodName: "google.iam.admin.v1.CreateServiceAccountKey",
    resourceName: `projects/-/serviceAccounts/${backup}`,
    resource: { type: "service_account", labels: { email_id: backup, unique_id: signal.digits(21) } },
    permission: "iam.serviceAccountKeys.create",
    request: {
      "@type": "type.googleapis.com/google.iam.admin.v1.CreateServiceAccountKeyRequest",
      name: `projects/-/serviceAccounts/${backup}`,
      private_key_type: 2,
    },
    response: {
      "@type": "type.googleapis.com/google.iam.admin.v1.ServiceAccountKey",
      name: `projects/${project.id}/serviceAccounts/${backup}/keys/${newKeyId}`,
      key_origin: 2,
    },
  });
  call(T + 2 * MINUTE, TABLES.activity, {
    serviceName: "cloudresourcemanager.googleapis.com",
    methodName: "SetIamPolicy",
    resourceName: `projects/${project.id}`,
    resource: { type: "project", labels: {} },
    permission: "resourcemanager.projects.setIamPolicy",
    status: { code: 7, message: "PERMISSION_DENIED" },
    request: {
      "@type": "type.googleapis.com/google.iam.v1.SetIamPolicyRequest",
      policy: { bindings: [{ role: "roles/editor", members: [`serviceAccount:${backup}`] }] },
    },
  });

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Evasion: Access From Anonymizing Proxy",
    findingClass: "THREAT",
    severity: "MEDIUM",
    eventTime: EVENT_TIME,
    resource: {
      name: `//iam.googleapis.com/projects/${project.id}/serviceAccounts/${signal.digits(21)}`,
      type: "google.iam.ServiceAccount",
      displayName: "backup-exporter",
    },
    description:
      "A principal modified Google Cloud resources from an anonymizing proxy address such as a Tor exit node.",
    finding: {
      sourceProperties: {
        detectionCategory: { ruleName: "anomalous_access", subRuleName: "tor_proxy_access" },
      },
      access: {
        principalEmail: backup,
        callerIp: TOR_IP,
        callerIpGeo: { regionCode: "DE" },
        userAgent: TOR_AGENT,
        serviceName: "iam.googleapis.com",
        methodName: "google.iam.admin.v1.CreateServiceAccountKey",
        serviceAccountKeyName: keyName,
      },
      mitreAttack: {
        primaryTactic: "DEFENSE_EVASION",
        primaryTechniques: ["MULTI_HOP_PROXY"],
        additionalTactics: ["INITIAL_ACCESS", "EXFILTRATION"],
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-09-20T00:00:00.000Z", "Ferret Demo Threat Feed");
  intel.indicator({
    name: "Tor exit node",
    pattern: `[ipv4-addr:value = '${TOR_IP}']`,
    types: ["anomalous-activity"],
    labels: ["tor-exit-node", "anonymization"],
    description: "Tor exit relay. Legitimate automation does not call cloud APIs from here.",
    confidence: 95,
    validFrom: "2025-09-20T00:00:00.000Z",
  });
  addFeedNoise(
    intel,
    rng.fork("intel-noise"),
    "2025-06-01T00:00:00.000Z",
    new Set([TOR_IP, BACKUP_SERVER_IP]),
  );

  const expected: Expected = {
    scenario: "leaked-sa-key",
    category: "Evasion: Access From Anonymizing Proxy",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [
      { type: "ip", value: TOR_IP, why: "the Tor exit the key was used from" },
      { type: "principal", value: backup, why: "the service account whose key leaked" },
    ],
    requiredEvidence: [
      {
        id: "bulk-download",
        description: `the key downloaded the customer export bucket (${exportObjects.length} objects) from Tor`,
        anyOf: [EXPORTS],
      },
      {
        id: "new-key",
        description: "a second key was minted for the account from Tor",
        anyOf: ["CreateServiceAccountKey", newKeyId],
      },
      {
        id: "usual-origin",
        description: "the same key normally runs only the nightly backup from the on-premises server",
        anyOf: [BACKUP_SERVER_IP],
      },
    ],
    optionalEvidence: [
      {
        id: "escalation-denied",
        description: "SetIamPolicy to roles/editor from Tor was denied",
        anyOf: ["PERMISSION_DENIED", "roles/editor"],
      },
      {
        id: "tor",
        description: "intel marks the address as a Tor exit",
        anyOf: ["tor-exit-node", "Tor exit"],
      },
      { id: "same-key", description: "the same key id in both places", anyOf: [keyId] },
    ],
    mitreTechniques: ["T1078.004", "T1090.003", "T1530", "T1098.001"],
    probes: [
      {
        runbook: "service_account_key_activity",
        params: { service_account: backup },
        window: { hoursBefore: 12, hoursAfter: 1 },
        expect: [keyId, TOR_IP, BACKUP_SERVER_IP, "CreateServiceAccountKey", newKeyId],
        why: "one key, the usual origin and Tor, and the new key",
      },
      {
        runbook: "caller_ip_activity",
        params: { ip: TOR_IP },
        window: { hoursBefore: 1, hoursAfter: 1 },
        expect: ["storage.objects.get", "CreateServiceAccountKey", "SetIamPolicy"],
        why: "everything done from the Tor exit",
      },
      {
        runbook: "bucket_data_access",
        params: { bucket: EXPORTS },
        window: { hoursBefore: 12, hoursAfter: 1 },
        expect: [TOR_IP, BACKUP_SERVER_IP, `"calls":${exportObjects.length}`],
        why: "the whole export bucket read from Tor",
      },
      {
        runbook: "principal_activity",
        params: { principal: backup },
        window: { hoursBefore: 1, hoursAfter: 1 },
        expect: [TOR_IP, '"failed":1'],
        why: "the denied escalation",
      },
    ],
    story:
      `backup-exporter's key ${keyId.slice(0, 8)}… normally runs at 01:00 from ${BACKUP_SERVER_IP}. At 09:36 it was used from the Tor exit ${TOR_IP} ` +
      `to list buckets and download all ${exportObjects.length} objects of ${EXPORTS}, then to create a second key; a SetIamPolicy for roles/editor was denied.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const leakedSaKey: ScenarioDefinition = {
  name: "leaked-sa-key",
  seed: "ferret/leaked-sa-key/v1",
  build,
};

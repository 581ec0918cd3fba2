import { makeEnvironment, makeVm } from "./environment.js";
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

const EVENT_TIME = "2025-07-22T14:03:51.207Z";
const ROGUE_IP = "203.0.113.201";
const EXTERNAL_MEMBER = "dev.contractor.ops@gmail.com";
const PERSISTENCE_SA = "svc-backup-sync";
const ROGUE_AGENT = "python-requests/2.31.0 google-auth/2.29.0";
const CI_AGENT = "google-cloud-sdk gcloud/489.0.0 command/gcloud.run.deploy";

/**
 * The CI deployer's service-account key leaks. From a VPS the intruder uses it to make a
 * personal Gmail account project owner, then that account creates its own service account
 * and key to stay in. Event Threat Detection flags the grant to an external member.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, { name: "web-frontend-1", role: "web", host: 20, externalIp: "34.122.9.14" }),
    makeVm(rng, { name: "web-frontend-2", role: "web", host: 21, externalIp: "34.122.9.15" }),
    makeVm(rng, { name: "db-primary-1", role: "db", host: 30 }),
    makeVm(rng, { name: "build-runner-1", role: "build", host: 40 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.122.9.2" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-web-prod",
    domain: "acme-web.io",
    vms,
    buckets: ["acme-web-prod-uploads", "acme-web-prod-releases"],
  });
  const { project } = env;
  const ci = env.serviceAccounts.ci;
  const keyId = rng.hex(40);
  const keyName = `//iam.googleapis.com/projects/${project.id}/serviceAccounts/${ci}/keys/${keyId}`;
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 10 * HOUR, end: T + 2 * HOUR }, rng.fork("noise"), {
    flows: 1500,
    dns: 700,
  });

  const signal = rng.fork("signal");
  const projectResource = { type: "project", labels: {} };
  // The deployer's ordinary day: deploys and release uploads from the CI runners, with its key.
  for (let t = T - 9 * HOUR; t < T + 2 * HOUR; t += signal.int(35, 80) * MINUTE) {
    book.add(
      TABLES.activity,
      auditEntry(signal, {
        table: TABLES.activity,
        project,
        time: t,
        serviceName: "run.googleapis.com",
        methodName: "google.cloud.run.v1.Services.ReplaceService",
        resourceName: `namespaces/${project.id}/services/web-api`,
        resource: {
          type: "cloud_run_revision",
          labels: { service_name: "web-api", location: "us-central1" },
        },
        principal: ci,
        callerIp: signal.pick(env.ciIps),
        userAgent: CI_AGENT,
        keyName,
        permission: "run.services.update",
      }),
    );
    book.add(
      TABLES.dataAccess,
      auditEntry(signal, {
        table: TABLES.dataAccess,
        project,
        time: t + signal.int(5_000, 40_000),
        serviceName: "storage.googleapis.com",
        methodName: "storage.objects.create",
        resourceName: `projects/_/buckets/acme-web-prod-releases/objects/web-api/${signal.hex(7)}.tar.gz`,
        resource: {
          type: "gcs_bucket",
          labels: { bucket_name: "acme-web-prod-releases", location: "us-central1" },
        },
        principal: ci,
        callerIp: signal.pick(env.ciIps),
        userAgent: "gcloud-python/2.18.0",
        keyName,
        permission: "storage.objects.create",
      }),
    );
  }

  // The intruder with the leaked key: look around, then grant.
  const recon: Array<[number, string, string, string]> = [
    [-26, "cloudresourcemanager.googleapis.com", "GetIamPolicy", `projects/${project.id}`],
    [-24, "iam.googleapis.com", "google.iam.admin.v1.ListServiceAccounts", `projects/${project.id}`],
    [-21, "storage.googleapis.com", "storage.buckets.list", `projects/_/buckets`],
    [-9, "cloudresourcemanager.googleapis.com", "GetIamPolicy", `projects/${project.id}`],
  ];
  for (const [minutes, serviceName, methodName, resourceName] of recon) {
    book.add(
      TABLES.dataAccess,
      auditEntry(signal, {
        table: TABLES.dataAccess,
        project,
        time: T + minutes * MINUTE + signal.int(0, 30_000),
        serviceName,
        methodName,
        resourceName,
        resource: projectResource,
        principal: ci,
        callerIp: ROGUE_IP,
        userAgent: ROGUE_AGENT,
        keyName,
      }),
    );
  }
  const grant = { action: "ADD" as const, role: "roles/owner", member: `user:${EXTERNAL_MEMBER}` };
  book.add(
    TABLES.activity,
    auditEntry(signal, {
      table: TABLES.activity,
      project,
      time: T,
      serviceName: "cloudresourcemanager.googleapis.com",
      methodName: "SetIamPolicy",
      resourceName: `projects/${project.id}`,
      resource: projectResource,
      principal: ci,
      callerIp: ROGUE_IP,
      userAgent: ROGUE_AGENT,
      keyName,
      permission: "resourcemanager.projects.setIamPolicy",
      request: {
        "@type": "type.googleapis.com/google.iam.v1.SetIamPolicyRequest",
        resource: project.id,
        policy: { bindings: [{ role: grant.role, members: [grant.member] }] },
      },
      bindingDeltas: [grant],
    }),
  );
  // The new owner settles in from the same address.
  const persistenceSa = `${PERSISTENCE_SA}@${project.id}.iam.gserviceaccount.com`;
  const newKey = signal.hex(40);
  const followUps: Array<[number, string, string, string, Record<string, unknown> | undefined]> = [
    [
      4,
      "iam.googleapis.com",
      "google.iam.admin.v1.CreateServiceAccount",
      `projects/${project.id}/serviceAccounts/${persistenceSa}`,
      { account_id: PERSISTENCE_SA },
    ],
    [
      5,
      "iam.googleapis.com",
      "google.iam.admin.v1.CreateServiceAccountKey",
      `projects/${project.id}/serviceAccounts/${persistenceSa}`,
      { private_key_type: 2 },
    ],
  ];
  for (const [minutes, serviceName, methodName, resourceName, request] of followUps) {
    book.add(
      TABLES.activity,
      auditEntry(signal, {
        table: TABLES.activity,
        project,
        time: T + minutes * MINUTE + signal.int(0, 20_000),
        serviceName,
        methodName,
        resourceName,
        resource: {
          type: "service_account",
          labels: { email_id: persistenceSa, unique_id: signal.digits(21) },
        },
        principal: EXTERNAL_MEMBER,
        callerIp: ROGUE_IP,
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/127.0,gzip(gfe)",
        permission: methodName.endsWith("Key")
          ? "iam.serviceAccountKeys.create"
          : "iam.serviceAccounts.create",
        ...(request ? { request: { "@type": `type.googleapis.com/${methodName}Request`, ...request } } : {}),
        ...(methodName.endsWith("Key")
          ? {
              response: {
                name: `projects/${project.id}/serviceAccounts/${persistenceSa}/keys/${newKey}`,
                key_algorithm: 2,
                key_origin: 1,
              },
            }
          : {}),
      }),
    );
  }
  book.add(
    TABLES.dataAccess,
    auditEntry(signal, {
      table: TABLES.dataAccess,
      project,
      time: T + 7 * MINUTE,
      serviceName: "storage.googleapis.com",
      methodName: "storage.objects.list",
      resourceName: "projects/_/buckets/acme-web-prod-uploads",
      resource: {
        type: "gcs_bucket",
        labels: { bucket_name: "acme-web-prod-uploads", location: "us-central1" },
      },
      principal: EXTERNAL_MEMBER,
      callerIp: ROGUE_IP,
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/127.0,gzip(gfe)",
      permission: "storage.objects.list",
    }),
  );

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Persistence: IAM Anomalous Grant",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//cloudresourcemanager.googleapis.com/projects/${project.number}`,
      type: "google.cloud.resourcemanager.Project",
      displayName: project.id,
    },
    description: "A principal granted a sensitive role to a member outside the organization.",
    finding: {
      sourceProperties: {
        detectionCategory: {
          ruleName: "iam_anomalous_grant",
          subRuleName: "external_member_added_to_policy",
        },
        properties: {
          sensitiveRoleGrant: { principalEmail: ci, bindingDeltas: [grant], members: [EXTERNAL_MEMBER] },
        },
      },
      access: {
        principalEmail: ci,
        callerIp: ROGUE_IP,
        callerIpGeo: { regionCode: "NL" },
        userAgent: ROGUE_AGENT,
        serviceName: "cloudresourcemanager.googleapis.com",
        methodName: "SetIamPolicy",
        serviceAccountKeyName: keyName,
      },
      iamBindings: [grant],
      mitreAttack: {
        primaryTactic: "PERSISTENCE",
        primaryTechniques: ["ACCOUNT_MANIPULATION"],
        additionalTechniques: ["VALID_ACCOUNTS"],
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-07-01T08:00:00.000Z", "Ferret Demo Threat Feed");
  const broker = intel.threatActor(
    "Cloud access broker cluster",
    "Resells and abuses leaked cloud credentials from rented VPS infrastructure.",
  );
  const vps = intel.indicator({
    name: "VPS seen abusing leaked cloud keys",
    pattern: `[ipv4-addr:value = '${ROGUE_IP}']`,
    types: ["anomalous-activity"],
    description:
      "Hosting-provider address seen calling cloud APIs with keys that leaked in public repositories.",
    confidence: 65,
    validFrom: "2025-07-10T00:00:00.000Z",
  });
  intel.relate(vps, "indicates", broker);
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-05-01T00:00:00.000Z", new Set([ROGUE_IP]));

  const expected: Expected = {
    scenario: "iam-anomalous-grant",
    category: "Persistence: IAM Anomalous Grant",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [
      { type: "principal", value: EXTERNAL_MEMBER, why: "the external account made project owner" },
      {
        type: "ip",
        value: ROGUE_IP,
        why: "where the deployer's key was used from, and the new owner acted from",
      },
    ],
    requiredEvidence: [
      {
        id: "owner-grant",
        description: "ci-deployer granted roles/owner to a Gmail account",
        anyOf: ["roles/owner"],
      },
      {
        id: "unusual-caller",
        description: "the deployer's key normally acts from the CI runners, this call came from a VPS",
        anyOf: [ROGUE_IP],
      },
      {
        id: "persistence",
        description: "the new owner created a service account and a key for it",
        anyOf: ["CreateServiceAccountKey", PERSISTENCE_SA],
      },
    ],
    optionalEvidence: [
      { id: "ci-baseline", description: "the deployer's usual caller IPs", anyOf: env.ciIps },
      {
        id: "recon",
        description: "GetIamPolicy and listing calls from the VPS before the grant",
        anyOf: ["GetIamPolicy", "ListServiceAccounts"],
      },
      { id: "same-key", description: "the same key id was used from both places", anyOf: [keyId] },
    ],
    mitreTechniques: ["T1098", "T1078.004", "T1136.003"],
    probes: [
      {
        runbook: "iam_policy_changes",
        params: {},
        window: { hoursBefore: 2, hoursAfter: 1 },
        expect: ["roles/owner", EXTERNAL_MEMBER, ROGUE_IP],
        why: "the grant, who made it and from where",
      },
      {
        runbook: "principal_activity",
        params: { principal: ci },
        window: { hoursBefore: 10, hoursAfter: 1 },
        expect: [ROGUE_IP, env.ciIps[0]!, "GetIamPolicy"],
        why: "the deployer's normal CI origin next to the VPS",
      },
      {
        runbook: "principal_activity",
        params: { principal: EXTERNAL_MEMBER },
        window: { hoursBefore: 1, hoursAfter: 1 },
        expect: ["CreateServiceAccountKey", ROGUE_IP],
        why: "what the new owner did",
      },
      {
        runbook: "caller_ip_activity",
        params: { ip: ROGUE_IP },
        window: { hoursBefore: 2, hoursAfter: 1 },
        expect: [ci, EXTERNAL_MEMBER],
        why: "both identities used from the same address",
      },
      {
        runbook: "service_account_key_activity",
        params: { service_account: ci },
        window: { hoursBefore: 10, hoursAfter: 1 },
        expect: [keyId, ROGUE_IP, env.ciIps[0]!],
        why: "one key, two origins",
      },
    ],
    story:
      `The ci-deployer key leaked; from ${ROGUE_IP} it read the project policy and made ${EXTERNAL_MEMBER} owner. ` +
      `That account created ${PERSISTENCE_SA} with a key and listed buckets. The deployer itself only ever acts from the CI runners.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const iamAnomalousGrant: ScenarioDefinition = {
  name: "iam-anomalous-grant",
  seed: "ferret/iam-anomalous-grant/v1",
  build,
};

import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { auditor, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-10-14T16:08:03.888Z";
const GROUP = "gcp-prod-admins@acme-retail.com";
const ADMIN = "r.okafor@acme-retail.com";
const OUTSIDER = "k.ramirez.ops@gmail.com";
const OUTSIDER_IP = "203.0.113.99";
const EXPORTS = "acme-retail-customer-exports";

/**
 * A help-desk administrator, talked into it over the phone, adds a Gmail account to the group
 * that holds Owner on the production project; Event Threat Detection flags an external member
 * added to a privileged group (shape of Google's published sample). The decisive evidence is
 * what the new member did next: within half an hour, from an address no one in the company
 * uses, it lists the buckets, downloads the customer exports and mints a key for the
 * Terraform service account.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, { name: "api-1", role: "web", host: 20 }),
    makeVm(rng, { name: "etl-worker-1", role: "etl", host: 12 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.70.11.2" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-retail-prod",
    domain: "acme-retail.com",
    vms,
    buckets: [EXPORTS, "acme-retail-raw"],
    users: ["r.okafor", "alice.nguyen", "bob.schmidt"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  call(T - 2_000, {
    logName: `organizations/${env.orgId}/logs/cloudaudit.googleapis.com%2Factivity`,
    serviceName: "admin.googleapis.com",
    methodName: "google.admin.AdminService.addGroupMember",
    resourceName: `organizations/${env.orgId}/groupSettings`,
    resource: {
      type: "audited_resource",
      labels: { service: "admin.googleapis.com", method: "google.admin.AdminService.addGroupMember" },
    },
    principal: ADMIN,
    callerIp: env.officeIps[0],
    userAgent:
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36,gzip(gfe)",
    metadata: {
      event: [
        {
          eventName: "ADD_GROUP_MEMBER",
          eventType: "GROUP_SETTINGS",
          parameter: [
            { name: "USER_EMAIL", value: OUTSIDER },
            { name: "GROUP_EMAIL", value: GROUP },
          ],
        },
      ],
    },
  });

  const outsider = {
    principal: OUTSIDER,
    callerIp: OUTSIDER_IP,
    userAgent: "google-cloud-sdk gcloud/492.0.0 command/gcloud.storage.cp invocation-id/7c1e",
  };
  const start = T + 9 * MINUTE;
  call(start, {
    ...outsider,
    table: TABLES.dataAccess,
    serviceName: "storage.googleapis.com",
    methodName: "storage.buckets.list",
    resourceName: "projects/_/buckets",
    resource: { type: "gcs_bucket", labels: {} },
    permission: "storage.buckets.list",
  });
  for (let i = 0; i < 36; i++)
    call(start + 60_000 + i * signal.int(4_000, 9_000), {
      ...outsider,
      table: TABLES.dataAccess,
      serviceName: "storage.googleapis.com",
      methodName: "storage.objects.get",
      resourceName: `projects/_/buckets/${EXPORTS}/objects/exports/customers/part-${String(i).padStart(4, "0")}.csv.gz`,
      resource: { type: "gcs_bucket", labels: { bucket_name: EXPORTS, location: "us" } },
      permission: "storage.objects.get",
    });
  call(start + 9 * MINUTE, {
    ...outsider,
    userAgent: "google-cloud-sdk gcloud/492.0.0 command/gcloud.iam.service-accounts.keys.create",
    serviceName: "iam.googleapis.com",
    methodName: "google.iam.admin.v1.CreateServiceAccountKey",
    resourceName: `projects/-/serviceAccounts/${env.serviceAccounts.terraform}`,
    resource: { type: "service_account", labels: { email_id: env.serviceAccounts.terraform } },
    permission: "iam.serviceAccountKeys.create",
    response: {
      "@type": "type.googleapis.com/google.iam.admin.v1.ServiceAccountKey",
      name: `projects/${env.project.id}/serviceAccounts/${env.serviceAccounts.terraform}/keys/${signal.hex(40)}`,
    },
  });

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Credential Access: External Member Added To Privileged Group",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    organizationLevel: true,
    resource: {
      name: `//cloudidentity.googleapis.com/groups/${GROUP}`,
      type: "google.cloud.identity.Group",
      displayName: GROUP,
    },
    description:
      "A member from outside the organization was added to a Google group that holds sensitive roles.",
    finding: {
      sourceProperties: {
        detectionCategory: {
          technique: "persistence",
          indicator: "audit_log",
          ruleName: "external_member_added_to_privileged_group",
        },
        detectionPriority: "HIGH",
        affectedResources: [
          { gcpResourceName: `//cloudidentity.googleapis.com/groups/${GROUP}` },
          { gcpResourceName: `//cloudresourcemanager.googleapis.com/organizations/${env.orgId}` },
        ],
        properties: {
          externalMemberAddedToPrivilegedGroup: {
            principalEmail: ADMIN,
            groupName: `group:${GROUP}`,
            externalMember: `user:${OUTSIDER}`,
            sensitiveRoles: [
              {
                resource: `//cloudresourcemanager.googleapis.com/projects/${env.project.id}`,
                roleName: ["roles/owner"],
              },
            ],
          },
        },
      },
      access: {
        principalEmail: ADMIN,
        callerIp: env.officeIps[0],
        serviceName: "admin.googleapis.com",
        methodName: "google.admin.AdminService.addGroupMember",
      },
      mitreAttack: { primaryTactic: "PERSISTENCE", primaryTechniques: ["ACCOUNT_MANIPULATION"] },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-10-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-07-01T00:00:00.000Z", new Set([OUTSIDER_IP]));

  const expected: Expected = {
    scenario: "external-member-added",
    category: "Credential Access: External Member Added To Privileged Group",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [
      { type: "principal", value: OUTSIDER, why: "the external member" },
      { type: "ip", value: OUTSIDER_IP, why: "where the new member acted from" },
    ],
    requiredEvidence: [
      {
        id: "new-member-next",
        description: "the new member minted a key for the Terraform service account",
        anyOf: ["CreateServiceAccountKey"],
      },
      { id: "exports-read", description: "and read the customer exports", anyOf: [EXPORTS] },
    ],
    optionalEvidence: [{ id: "the-add", description: "the group change itself", anyOf: ["addGroupMember"] }],
    mitreTechniques: ["T1098"],
    probes: [
      {
        runbook: "principal_activity",
        params: { principal: OUTSIDER },
        window: { hoursBefore: 1, hoursAfter: 2 },
        expect: ["CreateServiceAccountKey", "storage.objects.get", OUTSIDER_IP],
        why: "what the newly added principal did next",
      },
    ],
    story:
      `${ADMIN} added ${OUTSIDER} to ${GROUP} (Owner on ${env.project.id}) at ${EVENT_TIME.slice(11, 16)} UTC. ` +
      `Nine minutes later ${OUTSIDER}, from ${OUTSIDER_IP}, listed the buckets, downloaded 36 objects of ${EXPORTS} and created a key for the Terraform service account.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const externalMemberAdded: ScenarioDefinition = {
  name: "external-member-added",
  seed: "ferret/external-member-added/v1",
  build,
};

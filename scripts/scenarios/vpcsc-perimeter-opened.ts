import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { auditor, DAY, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-09-30T21:17:40.052Z";
const POLICY_ID = "558819004133";
const PERIMETER = "prod_data_perimeter";
const ADMIN = "dana.lee@acme-retail.com";
const ADMIN_NEW_IP = "203.0.113.150";
const OUTSIDE_SA = "sync-agent@partner-ext-77.iam.gserviceaccount.com";
const OUTSIDE_IP = "198.51.100.61";
const DATASET = "finance";
const VPCSC_DENIAL =
  "Request is prohibited by organization's policy. vpcServiceControlsUniqueIdentifier: 3zQKv8_Dv6f2LrP1";

/**
 * A service account from another organization keeps trying to read the finance dataset and is
 * stopped by the VPC Service Controls perimeter (Policy Denied audit logs). Then an admin's
 * account, from an address it has never used, takes the project out of the perimeter; Event
 * Threat Detection reports the perimeter change. Two minutes later the same outside account,
 * from the same address, reads the tables it was denied: denied, a change, then allowed.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, { name: "etl-worker-1", role: "etl", host: 12 }),
    makeVm(rng, { name: "db-replica-1", role: "db", host: 30 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.70.11.2" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-data-prod",
    domain: "acme-retail.com",
    vms,
    buckets: ["acme-data-raw", "acme-finance-exports"],
    users: ["dana.lee", "alice.nguyen", "bob.schmidt"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const console =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0 Safari/537.36,gzip(gfe)";
  // dana.lee's ordinary month: console work from the office.
  for (let d = 29; d >= 2; d--) {
    if (d % 7 === 5 || d % 7 === 6) continue;
    call(T - d * DAY - signal.int(8, 11) * HOUR, {
      table: TABLES.dataAccess,
      principal: ADMIN,
      callerIp: signal.pick(env.officeIps),
      userAgent: console,
      serviceName: "accesscontextmanager.googleapis.com",
      methodName: "google.identity.accesscontextmanager.v1.AccessContextManager.ListServicePerimeters",
      resourceName: `accessPolicies/${POLICY_ID}`,
      resource: { type: "audited_resource", labels: { service: "accesscontextmanager.googleapis.com" } },
    });
  }

  const bq = { type: "bigquery_dataset", labels: { dataset_id: DATASET } };
  const outsider = {
    principal: OUTSIDE_SA,
    callerIp: OUTSIDE_IP,
    userAgent: "google-cloud-bigquery/3.25.0 python/3.12",
  };
  const methods = [
    "google.cloud.bigquery.v2.JobService.InsertJob",
    "google.cloud.bigquery.v2.TableDataService.List",
    "google.cloud.bigquery.v2.TableService.GetTable",
  ];
  for (let i = 0; i < 9; i++)
    call(T - 52 * MINUTE + i * signal.int(3, 6) * MINUTE, {
      ...outsider,
      table: TABLES.policy,
      serviceName: "bigquery.googleapis.com",
      methodName: methods[i % methods.length] ?? methods[0]!,
      resourceName: `projects/${env.project.id}/datasets/${DATASET}/tables/ledger_${2021 + (i % 4)}`,
      resource: bq,
      status: { code: 7, message: VPCSC_DENIAL },
      metadata: {
        "@type": "type.googleapis.com/google.cloud.audit.VpcServiceControlAuditMetadata",
        violationReason: "RESOURCES_NOT_IN_SAME_SERVICE_PERIMETER",
        securityPolicyInfo: {
          servicePerimeterName: `accessPolicies/${POLICY_ID}/servicePerimeters/${PERIMETER}`,
        },
      },
    });

  call(T, {
    logName: `organizations/${env.orgId}/logs/cloudaudit.googleapis.com%2Factivity`,
    principal: ADMIN,
    callerIp: ADMIN_NEW_IP,
    userAgent: "python-requests/2.31.0",
    serviceName: "accesscontextmanager.googleapis.com",
    methodName: "google.identity.accesscontextmanager.v1.AccessContextManager.UpdateServicePerimeter",
    resourceName: `accessPolicies/${POLICY_ID}/servicePerimeters/${PERIMETER}`,
    resource: { type: "audited_resource", labels: { service: "accesscontextmanager.googleapis.com" } },
    permission: "accesscontextmanager.servicePerimeters.update",
    request: {
      servicePerimeter: {
        name: `accessPolicies/${POLICY_ID}/servicePerimeters/${PERIMETER}`,
        status: { resources: [], restrictedServices: ["storage.googleapis.com"] },
      },
      updateMask: "status.resources,status.restrictedServices",
    },
  });

  for (let i = 0; i < 30; i++)
    call(T + 2 * MINUTE + i * signal.int(20, 50) * 1_000, {
      ...outsider,
      table: i % 3 === 0 ? TABLES.activity : TABLES.dataAccess,
      serviceName: "bigquery.googleapis.com",
      methodName: methods[i % methods.length] ?? methods[0]!,
      resourceName: `projects/${env.project.id}/datasets/${DATASET}/tables/ledger_${2021 + (i % 4)}`,
      resource: bq,
    });

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Defense Evasion: Modify VPC Service Control",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    organizationLevel: true,
    resource: {
      name: `//accesscontextmanager.googleapis.com/accessPolicies/${POLICY_ID}/servicePerimeters/${PERIMETER}`,
      type: "google.identity.accesscontextmanager.ServicePerimeter",
      displayName: PERIMETER,
    },
    description:
      "A VPC Service Controls perimeter was changed in a way that weakens the protection it gives.",
    finding: {
      sourceProperties: {
        detectionCategory: { ruleName: "modify_vpc_service_control" },
        properties: {
          policyLink: `https://console.cloud.google.com/security/service-perimeter/edit/accessPolicies/${POLICY_ID}/servicePerimeters/${PERIMETER}`,
          removedResources: [`projects/${env.project.number}`],
          removedRestrictedServices: ["bigquery.googleapis.com"],
        },
      },
      access: {
        principalEmail: ADMIN,
        callerIp: ADMIN_NEW_IP,
        userAgent: "python-requests/2.31.0",
        serviceName: "accesscontextmanager.googleapis.com",
        methodName: "google.identity.accesscontextmanager.v1.AccessContextManager.UpdateServicePerimeter",
      },
      mitreAttack: { primaryTactic: "DEFENSE_EVASION", primaryTechniques: ["IMPAIR_DEFENSES"] },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-09-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(
    intel,
    rng.fork("intel-noise"),
    "2025-06-01T00:00:00.000Z",
    new Set([ADMIN_NEW_IP, OUTSIDE_IP]),
  );

  const expected: Expected = {
    scenario: "vpcsc-perimeter-opened",
    category: "Defense Evasion: Modify VPC Service Control",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [
      { type: "principal", value: OUTSIDE_SA, why: "the outside account the perimeter had stopped" },
      { type: "ip", value: OUTSIDE_IP, why: "where it called from, denied then allowed" },
    ],
    requiredEvidence: [
      {
        id: "denied-then-allowed",
        description: `${OUTSIDE_SA} was denied by the perimeter 9 times, then read the finance tables right after the change`,
        anyOf: [OUTSIDE_SA],
      },
      {
        id: "perimeter-reason",
        description: "the denials were VPC Service Controls violations",
        anyOf: ["vpcServiceControlsUniqueIdentifier", "prohibited by organization's policy"],
      },
    ],
    optionalEvidence: [
      {
        id: "admin-new-address",
        description: "the admin changed the perimeter from an address its history does not show",
        anyOf: ["first seen", "first-seen", "never"],
      },
    ],
    mitreTechniques: ["T1562"],
    probes: [
      {
        runbook: "access_denied_then_allowed",
        params: {},
        window: { hoursBefore: 2, hoursAfter: 1 },
        expect: [OUTSIDE_SA, OUTSIDE_IP, '"denied":9', "vpcServiceControlsUniqueIdentifier"],
        why: "the perimeter stopped the outside account, then let it through",
      },
      {
        runbook: "principal_history",
        params: { principal: ADMIN, recent: new Date(T - 24 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 30, hoursAfter: 6 },
        expect: [ADMIN_NEW_IP, env.officeIps[0] ?? "", '"days_before":0'],
        why: "the admin's usual office addresses against the new one",
      },
    ],
    story:
      `From ${T - 52 * MINUTE > 0 ? new Date(T - 52 * MINUTE).toISOString().slice(11, 16) : ""} UTC ${OUTSIDE_SA} (${OUTSIDE_IP}) was denied 9 times by the perimeter ${PERIMETER}. ` +
      `At ${EVENT_TIME.slice(11, 16)} ${ADMIN}, from ${ADMIN_NEW_IP} (never used by that account in 30 days) removed ${env.project.id} from the perimeter; ` +
      "two minutes later the same outside account read the finance tables 30 times. Denied, then a change, then allowed.",
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const vpcscPerimeterOpened: ScenarioDefinition = {
  name: "vpcsc-perimeter-opened",
  seed: "ferret/vpcsc-perimeter-opened/v1",
  build,
};

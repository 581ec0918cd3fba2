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

const EVENT_TIME = "2025-11-19T23:48:16.007Z";
const ANALYST = "mark.chen@acme-retail.com";
const NEW_IP = "198.51.100.140";
const NEW_AGENT = "python-requests/2.31.0 google-cloud-bigquery/3.11.4";
const DATASET = "payments";
const TABLE = "transactions";
const DROP_PROJECT = "drop-zone-4471";
const MANAGED = "accessPolicies/558819004133/accessLevels/corp_managed_device";

/**
 * Event Threat Detection reports a BigQuery table copied to a project outside the
 * organization. The analyst's account runs queries on the payments dataset every working
 * day, from the office, in the console, on a managed device. The copy came at midnight from
 * an address and a client library that account has never used, without the managed-device
 * level: the principal's first-seen address and user agent against its own history.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, { name: "etl-worker-1", role: "etl", host: 12 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.70.11.2" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-finance-prod",
    domain: "acme-retail.com",
    vms,
    buckets: ["acme-finance-raw"],
    users: ["mark.chen", "alice.nguyen", "bob.schmidt"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const console =
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36,gzip(gfe)";
  const bq = { type: "bigquery_dataset", labels: { dataset_id: DATASET } };
  const tableName = `projects/${env.project.id}/datasets/${DATASET}/tables/${TABLE}`;
  for (let d = 30; d >= 1; d--) {
    if (d % 7 === 1 || d % 7 === 2) continue;
    const day = T - d * DAY - 14 * HOUR;
    for (let q = 0; q < 3; q++)
      call(day + q * signal.int(20, 90) * MINUTE, {
        principal: ANALYST,
        callerIp: signal.pick(env.officeIps),
        userAgent: console,
        accessLevels: [MANAGED],
        table: TABLES.dataAccess,
        serviceName: "bigquery.googleapis.com",
        methodName: "google.cloud.bigquery.v2.JobService.InsertJob",
        resourceName: `projects/${env.project.id}/jobs/bquxjob_${signal.hex(8)}`,
        resource: bq,
        request: {
          jobType: "QUERY",
          query: `SELECT merchant, SUM(amount) FROM ${DATASET}.${TABLE} GROUP BY 1`,
        },
      });
  }
  const exfil = { principal: ANALYST, callerIp: NEW_IP, userAgent: NEW_AGENT };
  call(T - 4 * MINUTE, {
    ...exfil,
    table: TABLES.dataAccess,
    serviceName: "bigquery.googleapis.com",
    methodName: "google.cloud.bigquery.v2.TableService.ListTables",
    resourceName: `projects/${env.project.id}/datasets/${DATASET}`,
    resource: bq,
  });
  call(T, {
    ...exfil,
    serviceName: "bigquery.googleapis.com",
    methodName: "google.cloud.bigquery.v2.JobService.InsertJob",
    resourceName: `projects/${env.project.id}/jobs/copy_${signal.hex(10)}`,
    resource: bq,
    request: {
      jobType: "COPY",
      sourceTable: tableName,
      destinationTable: `projects/${DROP_PROJECT}/datasets/stage/tables/tx_copy`,
    },
  });

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Exfiltration: BigQuery Data Exfiltration",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//bigquery.googleapis.com/projects/${env.project.id}/datasets/${DATASET}`,
      type: "google.cloud.bigquery.Dataset",
      displayName: DATASET,
    },
    description: "Data from a BigQuery table was saved to a resource outside the organization.",
    finding: {
      exfiltration: {
        sources: [{ name: `//bigquery.googleapis.com/${tableName}`, components: [] }],
        targets: [
          { name: `//bigquery.googleapis.com/projects/${DROP_PROJECT}/datasets/stage/tables/tx_copy` },
        ],
      },
      sourceProperties: {
        detectionCategory: { ruleName: "exfiltration_to_external_table" },
        properties: { jobState: "DONE", sourceTable: tableName },
      },
      access: {
        principalEmail: ANALYST,
        callerIp: NEW_IP,
        userAgent: NEW_AGENT,
        serviceName: "bigquery.googleapis.com",
        methodName: "google.cloud.bigquery.v2.JobService.InsertJob",
      },
      mitreAttack: { primaryTactic: "EXFILTRATION", primaryTechniques: ["EXFILTRATION_OVER_WEB_SERVICE"] },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-11-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set([NEW_IP]));

  const expected: Expected = {
    scenario: "bq-exfil-new-address",
    category: "Exfiltration: BigQuery Data Exfiltration",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [{ type: "ip", value: NEW_IP, why: "the address the copy came from" }],
    requiredEvidence: [
      {
        id: "usual-origin",
        description: "the account's month of history is office addresses on a managed device",
        anyOf: env.officeIps,
      },
      {
        id: "the-copy",
        description: "the copy job to the outside project",
        anyOf: [DROP_PROJECT, "InsertJob"],
      },
    ],
    optionalEvidence: [
      { id: "new-agent", description: "the client library never used before", anyOf: ["python-requests"] },
    ],
    mitreTechniques: ["T1567"],
    probes: [
      {
        runbook: "principal_history",
        params: { principal: ANALYST, recent: new Date(T - 24 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 31, hoursAfter: 6 },
        expect: [NEW_IP, env.officeIps[0] ?? "", "corp_managed_device", '"days_before":0'],
        why: "a first-seen address and agent against a month of office work",
      },
      {
        runbook: "resource_activity",
        params: { resource: `datasets/${DATASET}` },
        window: { hoursBefore: 24, hoursAfter: 6 },
        expect: [],
        rows: "none",
        why: "the copy is a job in the project, not an admin change on the dataset: the job log carries it",
      },
    ],
    story:
      `${ANALYST} queries ${DATASET}.${TABLE} on working days from the office (${env.officeIps.join(", ")}) in the console on a managed device. ` +
      `At ${EVENT_TIME.slice(11, 16)} UTC a copy job sent the table to ${DROP_PROJECT} from ${NEW_IP} with ${NEW_AGENT}: an address and a client the account never used in 30 days.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const bqExfilNewAddress: ScenarioDefinition = {
  name: "bq-exfil-new-address",
  seed: "ferret/bq-exfil-new-address/v1",
  build,
};

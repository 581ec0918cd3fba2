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

const EVENT_TIME = "2025-11-20T09:47:02.000Z";
const INSTANCE = "sandbox-pg-1";
const DEV = "priya.das@quarrylabs.dev";
const BROWSER =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36,gzip(gfe)";

/**
 * Security Health Analytics finds a Cloud SQL instance open to 0.0.0.0/0. It is a sandbox
 * instance labelled env=sandbox, data=synthetic; a developer opened it from her usual office
 * address and browser, as she edits it on most days, and closed it again fourteen minutes
 * later. The effect was bounded in time and in what it exposed.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const env = makeEnvironment(rng, {
    projectId: "quarry-sandbox-dev",
    domain: "quarrylabs.dev",
    vms: [makeVm(rng, { name: "dev-box-1", role: "build", host: 30 })],
    buckets: ["quarry-sandbox-scratch"],
    users: ["priya.das", "omar.haddad", "lin.zhou"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));
  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const patch = (time: number, settings: Record<string, unknown>) =>
    call(time, {
      principal: DEV,
      callerIp: env.officeIps[0],
      userAgent: BROWSER,
      serviceName: "cloudsql.googleapis.com",
      methodName: "cloudsql.instances.update",
      resourceName: `projects/${env.project.id}/instances/${INSTANCE}`,
      resource: {
        type: "cloudsql_database",
        labels: { database_id: `${env.project.id}:${INSTANCE}`, region: "us-central1" },
      },
      permission: "cloudsql.instances.update",
      request: {
        "@type": "type.googleapis.com/google.cloud.sql.v1.SqlInstancesUpdateRequest",
        body: {
          name: INSTANCE,
          settings: { userLabels: { env: "sandbox", data: "synthetic" }, ...settings },
        },
      },
    });
  onEarlierDays(signal, T, workdays(30), (time) =>
    patch(time, { databaseFlags: [{ name: "log_min_duration_statement", value: "250" }] }),
  );
  const opened = T - 6 * MINUTE;
  patch(opened, {
    ipConfiguration: {
      ipv4Enabled: true,
      authorizedNetworks: [{ name: "anywhere-test", value: "0.0.0.0/0" }],
    },
  });
  patch(opened + 14 * MINUTE, { ipConfiguration: { ipv4Enabled: true, authorizedNetworks: [] } });

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "securityHealthAnalytics",
    category: "PUBLIC_SQL_INSTANCE",
    findingClass: "MISCONFIGURATION",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//cloudsql.googleapis.com/projects/${env.project.id}/instances/${INSTANCE}`,
      type: "google.cloud.sql.Instance",
      displayName: INSTANCE,
    },
    description: "The Cloud SQL instance accepts connections from all IP addresses.",
    finding: {
      sourceProperties: {
        ReactivationCount: 0,
        AuthorizedNetworks: JSON.stringify(["0.0.0.0/0"]),
        ProjectId: env.project.id,
        ScannerName: "SQL_SCANNER",
        Explanation: "Your SQL instance is configured to accept connections from all IP addresses.",
      },
    },
  });
  const intel = new StixBundle(rng.fork("intel"), "2025-11-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set(env.officeIps));

  const expected: Expected = {
    scenario: "public-sql-instance-reverted",
    category: "PUBLIC_SQL_INSTANCE",
    verdict: "benign",
    acceptableVerdicts: ["benign", "false_positive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "reverted",
        description: "the same operator removed 0.0.0.0/0 fourteen minutes later",
        // The emptied list as a step reads it, or as the sink's escaped request JSON holds it.
        anyOf: ['authorizedNetworks":[]', 'authorizedNetworks\\":[]', "reverted"],
      },
      {
        id: "self-declared-sandbox",
        description: "the instance is labelled env=sandbox, data=synthetic",
        anyOf: ["synthetic", "sandbox"],
      },
    ],
    optionalEvidence: [
      { id: "usual-operator", description: "from her usual office address", anyOf: [env.officeIps[0] ?? ""] },
    ],
    mitreTechniques: [],
    probes: [
      {
        runbook: "resource_activity",
        params: { resource: INSTANCE },
        window: { hoursBefore: 2, hoursAfter: 2 },
        expect: ["cloudsql.instances.update", DEV, env.officeIps[0] ?? ""],
        why: "the change and its revert by the same operator",
      },
    ],
    story: `${DEV} opened ${INSTANCE} (env=sandbox, data=synthetic) to 0.0.0.0/0 from her usual office address and removed it fourteen minutes later: a bounded test on a sandbox.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const publicSqlInstanceReverted: ScenarioDefinition = {
  name: "public-sql-instance-reverted",
  seed: "ferret/public-sql-instance-reverted/v1",
  build,
};

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

const EVENT_TIME = "2025-12-02T10:04:12.441Z";
const BREAKGLASS = "breakglass-admin@acme-retail.com";
const OFFICE_IP = "34.118.12.41";
const MANAGED = "accessPolicies/558819004133/accessLevels/corp_managed_device";
const CANARY = "drill-canary-vm";
const CONSOLE =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36,gzip(gfe)";

/**
 * Event Threat Detection reports that a break-glass account was used. It is the security
 * team's monthly drill: the same account, from the same office address, on a managed device
 * (the request satisfied the corp_managed_device access level), reading the project's IAM
 * policy and stopping and starting the drill canary VM, as it did on each of the three
 * previous months. Corroborated benign context: the principal's own history, not the
 * absence of anything.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const canary = makeVm(rng, { name: CANARY, role: "web", host: 60 });
  const vms = [
    canary,
    makeVm(rng, { name: "api-1", role: "web", host: 20 }),
    makeVm(rng, { name: "etl-worker-1", role: "etl", host: 12 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.70.11.2" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-retail-prod",
    domain: "acme-retail.com",
    vms,
    buckets: ["acme-retail-raw"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const who = { principal: BREAKGLASS, callerIp: OFFICE_IP, userAgent: CONSOLE, accessLevels: [MANAGED] };
  const instance = `projects/${env.project.id}/zones/${canary.zone}/instances/${CANARY}`;
  const gce = { type: "gce_instance", labels: { instance_id: canary.id, zone: canary.zone } };
  const drill = (at: number) => {
    call(at, {
      ...who,
      table: TABLES.dataAccess,
      serviceName: "cloudresourcemanager.googleapis.com",
      methodName: "GetIamPolicy",
      resourceName: `projects/${env.project.id}`,
      resource: { type: "project", labels: {} },
      permission: "resourcemanager.projects.getIamPolicy",
    });
    call(at + 3 * MINUTE, {
      ...who,
      serviceName: "compute.googleapis.com",
      methodName: "v1.compute.instances.stop",
      resourceName: instance,
      resource: gce,
      permission: "compute.instances.stop",
    });
    call(at + 9 * MINUTE, {
      ...who,
      serviceName: "compute.googleapis.com",
      methodName: "v1.compute.instances.start",
      resourceName: instance,
      resource: gce,
      permission: "compute.instances.start",
    });
  };
  // The first Tuesday of each month, mid-morning.
  for (const daysBack of [84, 56, 28]) drill(T - daysBack * DAY + signal.int(-40, 40) * MINUTE);
  drill(T - 20_000);

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Defense Evasion: Breakglass Account Used",
    findingClass: "THREAT",
    severity: "MEDIUM",
    eventTime: EVENT_TIME,
    resource: {
      name: `//cloudresourcemanager.googleapis.com/projects/${env.project.number}`,
      type: "google.cloud.resourcemanager.Project",
      displayName: env.project.id,
    },
    description: "A break-glass account, kept for emergencies only, made API calls.",
    finding: {
      sourceProperties: {
        detectionCategory: { ruleName: "breakglass_account_used" },
        properties: { breakglassAccount: BREAKGLASS, method: "v1.compute.instances.stop" },
      },
      access: {
        principalEmail: BREAKGLASS,
        callerIp: OFFICE_IP,
        userAgent: CONSOLE,
        serviceName: "compute.googleapis.com",
        methodName: "v1.compute.instances.stop",
      },
      mitreAttack: { primaryTactic: "DEFENSE_EVASION", primaryTechniques: ["VALID_ACCOUNTS"] },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-11-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set([OFFICE_IP]));

  const expected: Expected = {
    scenario: "breakglass-managed-device",
    category: "Defense Evasion: Breakglass Account Used",
    verdict: "benign",
    acceptableVerdicts: ["benign", "false_positive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "managed-device",
        description: "the calls satisfied the corp_managed_device access level",
        anyOf: ["corp_managed_device"],
      },
      {
        id: "same-address-before",
        description:
          "the same account used the same office address on earlier days (the monthly drill), first 84 days before",
        anyOf: [new Date(T - 84 * DAY).toISOString().slice(0, 10)],
      },
    ],
    optionalEvidence: [{ id: "drill-target", description: "the drill's canary VM", anyOf: [CANARY] }],
    mitreTechniques: [],
    probes: [
      {
        runbook: "principal_history",
        params: { principal: BREAKGLASS, recent: new Date(T - 24 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 90, hoursAfter: 6 },
        expect: [OFFICE_IP, "corp_managed_device", '"days_before":3'],
        why: "the account's history: the same address and managed device on three earlier days",
      },
    ],
    story:
      `${BREAKGLASS} read the IAM policy of ${env.project.id} and stopped and started ${CANARY} from the office (${OFFICE_IP}) on a managed device, ` +
      "exactly as in the monthly break-glass drills 28, 56 and 84 days earlier. Benign: the principal's own corroborated history.",
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const breakglassManagedDevice: ScenarioDefinition = {
  name: "breakglass-managed-device",
  seed: "ferret/breakglass-managed-device/v1",
  build,
};

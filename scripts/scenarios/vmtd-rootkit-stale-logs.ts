import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { DAY, HOUR } from "./kit.js";
import { LogBook } from "./log-book.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-09-18T06:12:44.903Z";
/** The log export the team handed over: one busy day, two and a half years before the finding. */
const LOGS_DAY = "2023-03-01T00:00:00.000Z";
const VM_NAME = "ledger-api-2";

/**
 * VM Threat Detection scans the memory of ledger-api-2 and finds kernel code and system call
 * handlers that no loaded module accounts for: a rootkit. The logs handed to ferret are a
 * sink export that ends in March 2023, years before the finding, so no query in the finding's
 * window can return anything. The right answer says so once, keeps the detector's HIGH
 * severity (missing logs are not evidence of innocence), and does not search ever wider.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vm = makeVm(rng, { name: VM_NAME, role: "web", host: 31, zone: "europe-west1-c" });
  const vms = [
    vm,
    makeVm(rng, { name: "ledger-api-1", role: "web", host: 30, zone: "europe-west1-c" }),
    makeVm(rng, { name: "ledger-db-1", role: "db", host: 40, zone: "europe-west1-c" }),
    makeVm(rng, {
      name: "bastion-eu",
      role: "bastion",
      host: 5,
      zone: "europe-west1-c",
      externalIp: "35.205.1.90",
    }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "northwind-ledger-prod",
    domain: "northwind-bank.eu",
    vms,
    buckets: ["northwind-ledger-exports"],
  });
  const book = new LogBook();
  const day = Date.parse(LOGS_DAY);
  addBackgroundNoise(book, env, { start: day + 6 * HOUR, end: day + DAY - HOUR }, rng.fork("noise"));

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "vmThreatDetection",
    category: "Defense Evasion: Rootkit",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//compute.googleapis.com/projects/${env.project.id}/zones/${vm.zone}/instances/${vm.id}`,
      type: "google.compute.Instance",
      displayName: VM_NAME,
    },
    description:
      "VM Threat Detection found kernel code and system call handlers outside any known kernel module: a kernel-mode rootkit.",
    finding: {
      kernelRootkit: {
        name: "Diamorphine",
        unexpectedCodeModification: true,
        unexpectedSystemCallHandler: true,
        unexpectedInterruptHandler: false,
        unexpectedKernelCodePages: true,
      },
      mitreAttack: { primaryTactic: "DEFENSE_EVASION", primaryTechniques: ["ROOTKIT"] },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-09-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-06-01T00:00:00.000Z", new Set());

  const hoursBack = Math.ceil((T - day) / HOUR);
  const expected: Expected = {
    scenario: "vmtd-rootkit-stale-logs",
    category: "Defense Evasion: Rootkit",
    verdict: "inconclusive",
    acceptableVerdicts: ["inconclusive", "true_positive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "logs-end-before-finding",
        description: "the logs end in March 2023, years before the finding; nothing in them can speak to it",
        anyOf: ["2023-03-01"],
      },
    ],
    optionalEvidence: [
      { id: "rootkit", description: "the rootkit the detector named", anyOf: ["Diamorphine"] },
    ],
    mitreTechniques: ["T1014"],
    probes: [
      {
        runbook: "host_syslog",
        params: { instance: VM_NAME },
        window: { hoursBefore: 168, hoursAfter: 6 },
        expect: [],
        rows: "none",
        why: "nothing in the finding's time: the export ended long before",
      },
      {
        runbook: "host_syslog",
        params: { instance: VM_NAME },
        window: { hoursBefore: hoursBack, hoursAfter: 1 },
        expect: [VM_NAME],
        why: "the VM is in the logs, on the one day the export covers",
      },
    ],
    story:
      `VM Threat Detection reports the Diamorphine rootkit in the kernel of ${VM_NAME} on ${EVENT_TIME.slice(0, 10)}. ` +
      `The only logs are an export of ${LOGS_DAY.slice(0, 10)}: every table ends 2.5 years before the finding. ` +
      "The detector's memory evidence stands on its own; the logs cannot confirm or refute it, the severity stays HIGH, and no wider search helps.",
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const vmtdRootkitStaleLogs: ScenarioDefinition = {
  name: "vmtd-rootkit-stale-logs",
  seed: "ferret/vmtd-rootkit-stale-logs/v1",
  build,
};

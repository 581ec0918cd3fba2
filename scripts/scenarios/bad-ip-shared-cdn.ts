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

const EVENT_TIME = "2025-10-09T06:25:31.208Z";
const VM_NAME = "api-gw-1";
/** A CDN edge address: thousands of sites share it. */
const EDGE_IP = "151.101.86.49";
const MIRROR = "deb.debian.org";

/**
 * Event Threat Detection flags a VM's connection to an address its feed lists. The address is
 * a CDN edge shared by thousands of sites: the feed's own entry has confidence 15, the labels
 * benign / shared-infrastructure / cdn, and a validity that ended seven months earlier. The
 * VM resolved the Debian mirror to that address seconds before and apt fetched its package
 * lists from it: a connection to shared infrastructure, nothing more.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vm = makeVm(rng, { name: VM_NAME, role: "web", host: 24, zone: "europe-west1-b" });
  const vms = [vm, makeVm(rng, { name: "api-gw-2", role: "web", host: 25, zone: "europe-west1-b" })];
  const env = makeEnvironment(rng, {
    projectId: "lumen-pay-prod",
    domain: "lumenpay.eu",
    vms,
    buckets: ["lumen-pay-reports"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const start = T - 35_000;
  book.add(
    TABLES.dns,
    dnsQuery(signal, {
      project: env.project,
      time: start - 600,
      vm,
      name: MIRROR,
      type: "CNAME",
      answers: ["debian.map.fastlydns.net."],
    }),
  );
  book.add(
    TABLES.dns,
    dnsQuery(signal, {
      project: env.project,
      time: start - 400,
      vm,
      name: MIRROR,
      answers: [EDGE_IP],
      ttl: 60,
    }),
  );
  conversation(book, env, signal, {
    vm,
    localPort: 48_214,
    remoteIp: EDGE_IP,
    remotePort: 443,
    start,
    durationMs: 50_000,
    intervalMs: 5_000,
    bytesOut: [900, 2_400],
    bytesIn: [40_000, 180_000],
    location: { continent: "Europe", country: "bel", asn: 54113 },
  });
  const log = (time: number, program: string, message: string, pid?: number) =>
    book.add(
      TABLES.syslog,
      syslogLine(signal, { project: env.project, time, vm, program, message, ...(pid ? { pid } : {}) }),
    );
  log(start - 2_000, "systemd", "Starting apt-daily.service - Daily apt download activities...", 1);
  log(
    start + 1_000,
    "apt-helper",
    `Get:1 https://${MIRROR}/debian bookworm-updates InRelease [55.4 kB]`,
    8812,
  );
  log(
    start + 3_000,
    "apt-helper",
    `Get:2 https://${MIRROR}/debian-security bookworm-security InRelease [48.0 kB]`,
    8812,
  );
  log(start + 20_000, "apt-helper", "Fetched 1,204 kB in 2s (602 kB/s)", 8812);
  log(start + 52_000, "systemd", "apt-daily.service: Deactivated successfully.", 1);
  log(
    T + 24 * MINUTE,
    "systemd",
    "Starting apt-daily-upgrade.service - Daily apt upgrade and clean activities...",
    1,
  );

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Malware: Bad IP",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//compute.googleapis.com/projects/${env.project.id}/zones/${vm.zone}/instances/${vm.id}`,
      type: "google.compute.Instance",
      displayName: VM_NAME,
    },
    description: "A VM instance connected to an IP address that is known to be associated with malware.",
    finding: {
      sourceProperties: {
        evidence: [{ sourceLogId: { projectId: env.project.id } }],
        properties: {
          ip: [EDGE_IP],
          instanceDetails: `/projects/${env.project.id}/zones/${vm.zone}/instances/${VM_NAME}`,
        },
      },
      mitreAttack: {
        primaryTactic: "COMMAND_AND_CONTROL",
        primaryTechniques: ["APPLICATION_LAYER_PROTOCOL"],
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-09-20T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-07-01T00:00:00.000Z", new Set([EDGE_IP]));
  const entry = intel.indicator({
    name: `Shared CDN edge ${EDGE_IP}`,
    description:
      "CDN edge address shared by thousands of sites; it served a phishing kit for two days in February 2025. Kept for context: benign by default.",
    pattern: `[ipv4-addr:value = '${EDGE_IP}']`,
    types: ["anomalous-activity"],
    confidence: 15,
    labels: ["benign", "shared-infrastructure", "cdn"],
    validFrom: "2025-02-10T00:00:00.000Z",
    validUntil: "2025-03-01T00:00:00.000Z",
    created: "2025-02-10T00:00:00.000Z",
  });
  intel.opinion(
    [entry],
    "disagree",
    "A CDN edge: a connection to it says nothing about what was fetched.",
    "2025-03-02T00:00:00.000Z",
  );

  const expected: Expected = {
    scenario: "bad-ip-shared-cdn",
    category: "Malware: Bad IP",
    verdict: "false_positive",
    acceptableVerdicts: ["false_positive", "benign"],
    requiredIocs: [{ type: "ip", value: EDGE_IP, why: "the address the detector named" }],
    requiredEvidence: [
      {
        id: "intel-quality",
        description:
          "the feed's entry: confidence 15, labels benign/shared-infrastructure/cdn, validity ended 2025-03-01",
        anyOf: ["shared-infrastructure", "confidence 15", "2025-03-01"],
      },
      {
        id: "resolved-mirror",
        description: `${VM_NAME} resolved ${MIRROR} to ${EDGE_IP} before connecting; apt fetched from it`,
        anyOf: [MIRROR],
      },
    ],
    optionalEvidence: [{ id: "flows", description: "short HTTPS sessions to the edge", anyOf: ["443"] }],
    mitreTechniques: [],
    probes: [
      {
        runbook: "vpc_flows_to_dns_answers",
        params: { domain: MIRROR },
        window: { hoursBefore: 1, hoursAfter: 1 },
        expect: [VM_NAME, EDGE_IP],
        why: "the VM resolved the Debian mirror to the flagged address, then connected to it",
      },
      {
        runbook: "dns_lookups_answered_with_ip",
        params: { ip: EDGE_IP },
        window: { hoursBefore: 1, hoursAfter: 1 },
        expect: [MIRROR, VM_NAME],
        why: "the name that resolved to the flagged address: reached by name, not hard-coded",
      },
      {
        runbook: "vpc_flows_to_ip",
        params: { ip: EDGE_IP },
        window: { hoursBefore: 1, hoursAfter: 1 },
        expect: [VM_NAME, "443"],
        why: "the one short HTTPS conversation the detector saw",
      },
      {
        runbook: "host_syslog_search",
        params: { instance: VM_NAME, term: MIRROR },
        window: { hoursBefore: 1, hoursAfter: 1 },
        expect: ["apt-helper"],
        why: "apt's daily download fetched from the mirror",
      },
    ],
    story:
      `${VM_NAME} resolved ${MIRROR} to the CDN edge ${EDGE_IP} and apt's daily job fetched package lists from it over HTTPS for 50 s. ` +
      "The feed's only entry for the address has confidence 15, is labelled benign, shared-infrastructure and cdn, and expired on 2025-03-01: a connection to shared infrastructure is not malware.",
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const badIpSharedCdn: ScenarioDefinition = {
  name: "bad-ip-shared-cdn",
  seed: "ferret/bad-ip-shared-cdn/v1",
  build,
};

import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { LogBook } from "./log-book.js";
import { dnsQuery, syslogLine, TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const EVENT_TIME = "2025-08-05T06:00:02.000Z";
const BAD_DOMAIN = "update-cdn.sinkholed-c2.xyz";
const SINKHOLE_IP = "198.51.100.53";
const VALIDATOR = "/opt/ioc-validator/bin/validate --feed /var/lib/ioc/feeds/latest.txt --resolve-only";

/** Feed domains the validator resolves each run; most are dead, some sinkholed. */
function feedDomains(rng: Rng, count: number): string[] {
  const words = [
    "cdn",
    "update",
    "sync",
    "api",
    "secure",
    "login",
    "mail",
    "portal",
    "static",
    "track",
    "pay",
    "cloud",
  ];
  const tlds = ["xyz", "top", "ru", "cc", "info", "online", "site", "biz"];
  const out = new Set<string>([BAD_DOMAIN]);
  while (out.size < count)
    out.add(`${rng.pick(words)}-${rng.pick(words)}${rng.int(1, 999)}.${rng.pick(tlds)}`);
  return [...out];
}

/**
 * The security team's IOC scanner resolves every domain of its threat feed every six
 * hours to see which are still live. One of them is an old C2 domain, now sinkholed;
 * Event Threat Detection sees a VM resolve a known-bad domain. Nothing connects to it.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, { name: "ioc-scanner-1", role: "scanner", host: 15 }),
    makeVm(rng, { name: "log-forwarder-1", role: "etl", host: 16 }),
    makeVm(rng, { name: "siem-db-1", role: "db", host: 30 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.135.60.3" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-secops-tools",
    domain: "acme-sec.io",
    vms,
    buckets: ["acme-secops-feeds", "acme-secops-archive"],
    users: ["dana.kowalski", "eli.haddad"],
  });
  const scanner = vms[0]!;
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 13 * HOUR, end: T + 2 * HOUR }, rng.fork("noise"), {
    flows: 1500,
    dns: 700,
  });

  const signal = rng.fork("signal");
  const domains = feedDomains(signal.fork("feed"), 150);
  const sinkholed = new Set(domains.filter((d, i) => d === BAD_DOMAIN || i % 7 === 3));
  const log = (time: number, program: string, message: string, pid?: number) =>
    book.add(
      TABLES.syslog,
      syslogLine(signal, { project: env.project, time, vm: scanner, program, pid, message }),
    );
  // Runs at 00:00, 06:00, 12:00 and 18:00 UTC; the one at 06:00 is the finding's.
  for (const runStart of [T - 12 * HOUR, T - 6 * HOUR, T].map((t) => t - (t % (6 * HOUR)))) {
    const pid = signal.int(2000, 30000);
    log(runStart + 400, "CRON", `(svc-ioc) CMD (${VALIDATOR})`);
    log(
      runStart + 1_200,
      "ioc-validator",
      `loaded ${domains.length} domains from feed latest.txt (resolve only, no connections)`,
      pid,
    );
    domains.forEach((domain, i) => {
      const time = runStart + 2_000 + i * signal.int(150, 400);
      const answer = sinkholed.has(domain) ? [SINKHOLE_IP] : undefined;
      book.add(
        TABLES.dns,
        dnsQuery(signal, {
          project: env.project,
          time,
          vm: scanner,
          name: domain,
          responseCode: answer ? "NOERROR" : "NXDOMAIN",
          ...(answer ? { answers: answer, ttl: 3600 } : {}),
        }),
      );
    });
    log(
      runStart + 75_000,
      "ioc-validator",
      `resolved ${domains.length} domains: ${sinkholed.size} sinkholed (${SINKHOLE_IP}), ${domains.length - sinkholed.size} NXDOMAIN, 0 live`,
      pid,
    );
  }

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Malware: Bad Domain",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//compute.googleapis.com/projects/${env.project.id}/zones/${scanner.zone}/instances/${scanner.id}`,
      type: "google.compute.Instance",
      displayName: scanner.name,
    },
    description: "A VM queried a domain known to be associated with malware.",
    finding: {
      sourceProperties: {
        detectionCategory: { ruleName: "bad_domain", indicator: "domain" },
        properties: {
          domains: [BAD_DOMAIN],
          instanceDetails: `/projects/${env.project.id}/zones/${scanner.zone}/instances/${scanner.name}`,
          network: { project: env.project.id, location: scanner.zone },
        },
      },
      indicator: { domains: [BAD_DOMAIN] },
      mitreAttack: { primaryTactic: "COMMAND_AND_CONTROL", primaryTechniques: ["DNS"] },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-07-15T00:00:00.000Z", "Ferret Demo Threat Feed");
  const loader = intel.malware(
    "SmokeLoader",
    ["downloader"],
    "Modular loader whose C2 domains rotate often.",
  );
  const old = intel.indicator({
    name: "SmokeLoader C2 domain",
    pattern: `[domain-name:value = '${BAD_DOMAIN}']`,
    types: ["malicious-activity"],
    confidence: 80,
    validFrom: "2023-04-11T00:00:00.000Z",
    created: "2023-04-11T00:00:00.000Z",
    modified: "2023-04-11T00:00:00.000Z",
  });
  intel.relate(old, "indicates", loader);
  const sinkhole = intel.indicator({
    name: "Sinkholed C2 domain",
    pattern: `[domain-name:value = '${BAD_DOMAIN}']`,
    types: ["benign"],
    description: `Taken over by a research sinkhole in 2025-02; resolves to ${SINKHOLE_IP}. Lookups are noise, connections are infected hosts.`,
    validFrom: "2025-02-20T00:00:00.000Z",
    created: "2025-02-20T00:00:00.000Z",
    modified: "2025-02-20T00:00:00.000Z",
  });
  intel.opinion([sinkhole], "strongly-agree", "Confirmed sinkhole.");
  intel.indicator({
    name: "Research sinkhole",
    pattern: `[ipv4-addr:value = '${SINKHOLE_IP}']`,
    types: ["benign"],
    labels: ["sinkhole"],
    description: "Sinkhole operated by a research network; resolution alone is harmless.",
    validFrom: "2024-06-01T00:00:00.000Z",
  });
  addFeedNoise(
    intel,
    rng.fork("intel-noise"),
    "2025-05-01T00:00:00.000Z",
    new Set([BAD_DOMAIN, SINKHOLE_IP, ...domains]),
  );

  const expected: Expected = {
    scenario: "bad-domain-sinkhole",
    category: "Malware: Bad Domain",
    verdict: "benign",
    acceptableVerdicts: ["benign", "false_positive"],
    requiredIocs: [{ type: "domain", value: BAD_DOMAIN, why: "the domain the finding names" }],
    requiredEvidence: [
      {
        id: "validator-job",
        description: "the lookup came from the scheduled IOC validation job that resolves the whole feed",
        anyOf: ["ioc-validator", "resolve-only", "validate --feed"],
      },
      {
        id: "sinkholed",
        description: "the domain resolves to a research sinkhole; intel marks it sinkholed",
        anyOf: ["sinkhole", SINKHOLE_IP],
      },
    ],
    optionalEvidence: [
      {
        id: "no-connection",
        description: "no VM connected to the sinkhole address",
        anyOf: ["no flows", "no connection", "no rows matched"],
      },
      {
        id: "bulk-pattern",
        description: "the same VM resolved ~150 feed domains in a burst every six hours",
        anyOf: ["150 domains", "NXDOMAIN"],
      },
    ],
    mitreTechniques: ["T1071.004"],
    probes: [
      {
        runbook: "dns_queries_for_domain",
        params: { domain: BAD_DOMAIN },
        window: { hoursBefore: 13, hoursAfter: 1 },
        expect: [SINKHOLE_IP, scanner.name],
        absent: vms.slice(1).map((v) => v.name),
        why: "only the scanner asked, every six hours, and got the sinkhole",
      },
      {
        runbook: "host_syslog_search",
        params: { instance: scanner.name, term: "ioc-validator" },
        window: { hoursBefore: 13, hoursAfter: 1 },
        expect: ["resolve-only", "sinkholed", "0 live"],
        why: "the scheduled feed validation job",
      },
      {
        runbook: "vpc_flows_to_ip",
        params: { ip: SINKHOLE_IP },
        window: { hoursBefore: 13, hoursAfter: 2 },
        expect: [],
        rows: "none",
        why: "nothing connected to the sinkhole",
      },
      {
        runbook: "dns_queries_from_instance",
        params: { instance: scanner.name },
        window: { hoursBefore: 1, hoursAfter: 1 },
        expect: ["NXDOMAIN", BAD_DOMAIN],
        why: "a burst of feed lookups, mostly dead domains",
      },
    ],
    story:
      `ioc-scanner-1 is the security team's feed validator: every six hours cron resolves all ${domains.length} feed domains without connecting. ` +
      `${BAD_DOMAIN} is an old SmokeLoader C2 domain, sinkholed since February; it answered ${SINKHOLE_IP} and nothing connected to it.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const badDomainSinkhole: ScenarioDefinition = {
  name: "bad-domain-sinkhole",
  seed: "ferret/bad-domain-sinkhole/v1",
  build,
};

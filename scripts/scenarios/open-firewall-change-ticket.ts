import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { onEarlierDays } from "./habit.js";
import { auditor, HOUR } from "./kit.js";
import { LogBook } from "./log-book.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-11-11T10:04:37.512Z";
const RULE = "allow-https-web-public";
const AGENT =
  "Terraform/1.9.8 (+https://www.terraform.io) Terraform-Plugin-SDK/2.33.0 terraform-provider-google/6.9.0";

/**
 * Security Health Analytics reports a firewall rule open to 0.0.0.0/0. The Terraform service
 * account created it from the CI runner, on the network team's Tuesday change window, with the
 * change reference in the rule's description; it opens one port (443) to the storefront's tag.
 * The same account makes firewall changes from the same runners on earlier Tuesdays, each with
 * a change reference. What the rule declares itself to be, and the regular, bounded change,
 * make it benign.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, { name: "storefront-1", role: "web", host: 20 }),
    makeVm(rng, { name: "storefront-2", role: "web", host: 21 }),
    makeVm(rng, { name: "orders-db-1", role: "db", host: 40 }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "fjord-shop-prod",
    domain: "fjordshop.no",
    vms,
    buckets: ["fjord-shop-assets"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const tf = env.serviceAccounts.terraform;
  const change = (time: number, method: string, name: string, request: Record<string, unknown>) =>
    call(time, {
      principal: tf,
      callerIp: env.ciIps[0],
      userAgent: AGENT,
      serviceName: "compute.googleapis.com",
      methodName: method,
      resourceName: `projects/${env.project.id}/global/firewalls/${name}`,
      resource: { type: "gce_firewall_rule", labels: { firewall_rule_id: signal.digits(19) } },
      permission: method.replace("v1.compute.", "compute."),
      request: { "@type": `type.googleapis.com/${method.replace("v1.", "")}`, name, ...request },
      operation: {
        id: `operation-${Math.round(time)}-${signal.hex(12)}`,
        producer: "compute.googleapis.com",
      },
    });
  // The network team's change window: Tuesdays, from the runners, each change with its reference.
  onEarlierDays(signal, T, [7, 14, 21, 28], (time, i) =>
    change(
      time,
      "v1.compute.firewalls.patch",
      ["allow-health-checks", "allow-iap-ssh", "allow-internal", "deny-egress-smtp"][i] ?? "allow-internal",
      {
        description: `CHG-${2190 + i * 11}: network baseline`,
      },
    ),
  );
  const request = {
    description: "CHG-2231 public HTTPS for the storefront (behind the external load balancer)",
    direction: "INGRESS",
    sourceRanges: ["0.0.0.0/0"],
    allowed: [{ IPProtocol: "tcp", ports: ["443"] }],
    targetTags: ["web-frontend"],
    priority: 1000,
  };
  change(T, "v1.compute.firewalls.insert", RULE, request);

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "securityHealthAnalytics",
    category: "OPEN_FIREWALL",
    findingClass: "MISCONFIGURATION",
    severity: "HIGH",
    eventTime: new Date(T + 38 * 60_000).toISOString(),
    resource: {
      name: `//compute.googleapis.com/projects/${env.project.id}/global/firewalls/${signal.digits(19)}`,
      type: "google.compute.Firewall",
      displayName: RULE,
    },
    description:
      "Firewall rules that allow connections from all IP addresses or on all ports may expose resources.",
    externalUri: `https://console.cloud.google.com/networking/firewalls/details/${RULE}?project=${env.project.id}`,
    finding: {
      sourceProperties: {
        ReactivationCount: 0,
        Allowed: JSON.stringify([{ IPProtocol: "tcp", ports: ["443"] }]),
        AllowedIpRange: "All",
        ActivationTrigger: "Allows all IP addresses",
        ProjectId: env.project.id,
        SourceRange: JSON.stringify(["0.0.0.0/0"]),
        ScannerName: "FIREWALL_SCANNER",
        Explanation:
          "Firewall rules that allow connections from all IP addresses or on all ports may expose resources to attackers.",
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-11-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set(env.ciIps));

  const expected: Expected = {
    scenario: "open-firewall-change-ticket",
    category: "OPEN_FIREWALL",
    verdict: "benign",
    acceptableVerdicts: ["benign", "false_positive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "change-reference",
        description: "the rule's description carries the change reference",
        anyOf: ["CHG-2231"],
      },
      {
        id: "ci-author",
        description: "created by Terraform from the CI runner",
        anyOf: [env.ciIps[0] ?? ""],
      },
    ],
    optionalEvidence: [
      {
        id: "regular",
        description: "firewall changes on earlier Tuesdays, each with a change reference",
        anyOf: ["v1.compute.firewalls.patch"],
      },
    ],
    mitreTechniques: [],
    probes: [
      {
        runbook: "resource_activity",
        params: { resource: RULE },
        window: { hoursBefore: 2, hoursAfter: 2 },
        expect: ["v1.compute.firewalls.insert", tf, env.ciIps[0] ?? ""],
        why: "who created the rule, and from where",
      },
      {
        runbook: "resource_changer_history",
        params: { resource: RULE, recent: new Date(T - 6 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 31, hoursAfter: 2 },
        expect: [tf, "v1.compute.firewalls.patch", env.ciIps[0] ?? ""],
        why: "whoever created the rule, found from the rule alone, and that account's habit",
      },
      {
        runbook: "principal_history",
        params: { principal: tf, recent: new Date(T - 6 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 31, hoursAfter: 2 },
        expect: ["v1.compute.firewalls.patch", env.ciIps[0] ?? ""],
        why: "the account's habit: firewall changes from the runners on earlier Tuesdays",
      },
    ],
    story:
      `${tf} created ${RULE} from the CI runner ${env.ciIps[0]} in the Tuesday change window, described as "CHG-2231 public HTTPS for the storefront": ` +
      "one port, 443, to the web-frontend tag. The same account changes firewalls from the same runners every Tuesday with a change reference: an intended, bounded opening.",
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const openFirewallChangeTicket: ScenarioDefinition = {
  name: "open-firewall-change-ticket",
  seed: "ferret/open-firewall-change-ticket/v1",
  build,
};

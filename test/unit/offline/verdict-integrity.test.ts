import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Finding } from "../../../functions/src/domain/finding/finding.js";
import {
  MIN_DISMISSAL_SIGNALS,
  requireCorroboration,
} from "../../../functions/src/offline-model/concluder/corroboration.js";
import type { Decision } from "../../../functions/src/offline-model/concluder/decision.js";
import { SECURITY_TOOL } from "../../../functions/src/offline-model/concluder/rules/bad-indicator.js";
import { classifyRow } from "../../../functions/src/offline-model/evidence/classify.js";
import { iamGrant, publicGrant, quietLogs, T0 } from "./support/evidence.js";
import { badDomainFinding, iamGrantFinding, publicBucketFinding } from "./support/findings.js";
import { investigate, type Run } from "./support/harness.js";
import { at, dns, flow, syslog, type Tables } from "./support/logs.js";
import { type IntelTable, malicious, RealTools } from "./support/tools.js";

/**
 * Issue 13/16: one attacker-chosen word or log line must not turn a finding into a dismissal.
 * Each case runs a control and the same evidence with one hostile item added.
 */
async function runWith(finding: Finding, tables: Tables, intel: IntelTable = {}): Promise<Run> {
  const tools = await RealTools.create(tables, intel);
  try {
    return await investigate(finding, tools);
  } finally {
    await tools.close();
  }
}

function decision(verdict: Decision["verdict"], signals?: string[]): Decision {
  return {
    verdict,
    confidence: 0.8,
    severity: "LOW",
    rule: "Rule: test.",
    findings: [],
    mitre: [],
    actions: [],
    openQuestions: [],
    iocs: [],
    ...(signals ? { signals } : {}),
  };
}

describe("requireCorroboration", () => {
  it("turns a dismissal resting on fewer than two distinct signals into inconclusive, naming them", () => {
    assert.equal(MIN_DISMISSAL_SIGNALS, 2);
    for (const verdict of ["benign", "false_positive"] as const) {
      const one = requireCorroboration(decision(verdict, ["a sinkhole", "a sinkhole"]));
      assert.equal(one.verdict, "inconclusive", `${verdict}: a repeated signal counts once`);
      assert.ok(one.confidence <= 0.4);
      assert.match(one.rule, /only 1 \(a sinkhole\)/);
      assert.equal(requireCorroboration(decision(verdict)).verdict, "inconclusive", "no signals named");
      assert.equal(requireCorroboration(decision(verdict, ["a", "b"])).verdict, verdict);
    }
  });

  it("leaves true_positive and inconclusive alone", () => {
    assert.equal(requireCorroboration(decision("true_positive")).verdict, "true_positive");
    assert.equal(requireCorroboration(decision("inconclusive")).verdict, "inconclusive");
  });
});

describe("anchored signals", () => {
  it("names a security tool only as a whole token", () => {
    for (const name of ["edr-agent-2", "crowdstrike-sensor", "ioc-validator", "vuln-scanner-1", "soc_enrich"])
      assert.ok(SECURITY_TOOL.test(name), name);
    for (const name of ["cathedral-web", "fedramp-portal", "social-feed", "scandinavia-api", "webscanner"])
      assert.ok(!SECURITY_TOOL.test(name), name);
  });

  it("reads a change ticket only from a justification-like field, never inside a member or principal", () => {
    const grant = classifyRow({
      method: "SetIamPolicy",
      principal: "chg-40211.ops@gmail.com",
      member: "user:chg-40211.ops@gmail.com",
      role: "roles/owner",
      request: '{"policy":{"bindings":[{"role":"roles/owner","members":["user:chg-40211.ops@gmail.com"]}]}}',
    });
    assert.deepEqual(grant?.kind === "audit" && grant.tickets, []);
    const cited = classifyRow({
      method: "SetIamPolicy",
      request: '{"updateMask":"bindings","justification":"CHG-40211 partner onboarding"}',
    });
    assert.deepEqual(cited?.kind === "audit" && cited.tickets, ["CHG-40211"]);
  });
});

describe("one hostile item never dismisses", () => {
  it("a grantee named like a change ticket keeps an owner grant to a gmail account true_positive", async () => {
    const run = async (member: string) =>
      runWith(
        iamGrantFinding({
          project: "acme-prod",
          granter: "ops-admin@acme.example",
          member,
          callerIp: "198.51.100.20",
        }),
        {
          cloudaudit_googleapis_com_activity: [
            iamGrant({ granter: "ops-admin@acme.example", member, callerIp: "198.51.100.20" }),
          ],
        },
      );
    const control = await run("helper.contractor@gmail.com");
    const attack = await run("chg-40211.ops@gmail.com");
    assert.equal(control.conclusion.verdict, "true_positive");
    assert.equal(attack.conclusion.verdict, "true_positive", attack.conclusion.summary);
  });

  it("a ticket cited by the granter alone does not approve a grant to an outside account", async () => {
    const finding = iamGrantFinding();
    const run = await runWith(finding, {
      cloudaudit_googleapis_com_activity: [
        iamGrant({
          granter: "ops-admin@acme.example",
          member: "helper.contractor@gmail.com",
          callerIp: "198.51.100.20",
          request: '{"updateMask":"bindings","justification":"CHG-20431 partner onboarding"}',
        }),
      ],
    });
    assert.equal(run.conclusion.verdict, "true_positive", run.conclusion.summary);
  });

  it("an attacker's log line naming the bad domain as a scan does not dismiss it (issue 16 item 2)", async () => {
    const vm = "web-3";
    const domain = "update-check.badcdn.xyz";
    const tables = (extra: Tables["syslog"] = []): Tables => ({
      dns_googleapis_com_dns_queries: [dns({ at: at(T0, 3), vm, name: domain, answer: "198.51.100.140" })],
      ...quietLogs(vm),
      syslog: [...(quietLogs(vm).syslog ?? []), ...extra],
    });
    const intel = { [domain]: malicious(["c2"]) };
    const control = await runWith(badDomainFinding(), tables(), intel);
    const attack = await runWith(
      badDomainFinding(),
      tables([
        syslog({ at: at(T0, 3), vm, text: `security-scan: nslookup ${domain} ok (ioc-validator check)` }),
      ]),
      intel,
    );
    assert.ok(!["benign", "false_positive"].includes(control.conclusion.verdict), control.conclusion.verdict);
    assert.ok(
      !["benign", "false_positive"].includes(attack.conclusion.verdict),
      `one log line dismissed the finding: ${attack.conclusion.summary}`,
    );
  });

  it("a security-tool client plus a sinkhole answer, two sources, still dismiss", async () => {
    const finding = badDomainFinding({
      project: "acme-prod",
      vm: "ioc-validator-1",
      domain: "update-check.badcdn.xyz",
    });
    const run = await runWith(
      finding,
      {
        dns_googleapis_com_dns_queries: [
          dns({ at: at(T0, 3), vm: "ioc-validator-1", name: "update-check.badcdn.xyz", answer: "0.0.0.0" }),
        ],
        ...quietLogs("ioc-validator-1"),
      },
      { "update-check.badcdn.xyz": malicious(["c2"]) },
    );
    assert.equal(run.conclusion.verdict, "benign", run.conclusion.summary);
  });
});

describe("each rule's guard, one case each (mutation-checked)", () => {
  const domain = "update-check.badcdn.xyz";

  it("a ticket-shaped word inside an address in a justification is not a ticket", () => {
    const row = classifyRow({
      method: "SetIamPolicy",
      request:
        '{"justification":"access for chg-40211.ops@gmail.com, jira-4021@partner.example and user ops.chg-40211 as asked"}',
    });
    assert.deepEqual(row?.kind === "audit" && row.tickets, []);
  });

  it("an automation word inside a person's name is not an automation identity", async () => {
    // "marci" ends in "ci"; with a cited ticket, an unanchored match would make two approval signals.
    const finding = iamGrantFinding({
      project: "acme-prod",
      granter: "marci@acme.example",
      member: "helper.contractor@gmail.com",
      callerIp: "198.51.100.20",
    });
    const run = await runWith(finding, {
      cloudaudit_googleapis_com_activity: [
        iamGrant({
          granter: "marci@acme.example",
          member: "helper.contractor@gmail.com",
          callerIp: "198.51.100.20",
          request: '{"updateMask":"bindings","justification":"CHG-20431 partner onboarding"}',
        }),
      ],
    });
    assert.equal(run.conclusion.verdict, "true_positive", run.conclusion.summary);
  });

  it("a security tool's host line counts only in the minutes of the lookup", async () => {
    const vm = "web-3";
    const run = await runWith(
      badDomainFinding(),
      {
        dns_googleapis_com_dns_queries: [dns({ at: at(T0, 3), vm, name: domain, answer: "198.51.100.140" })],
        ...quietLogs(vm),
        // Two hours before the lookup: a scanner line that has nothing to do with it.
        syslog: [
          syslog({ at: at(T0, -120), vm, text: `web-3 nessus[88]: scan finished, checked ${domain}` }),
        ],
      },
      { [domain]: { ...malicious(["c2"]), tags: ["c2", "sinkholed"] } },
    );
    assert.ok(!["benign", "false_positive"].includes(run.conclusion.verdict), run.conclusion.summary);
  });

  it("no dismissal when the workload connected after the lookup, whatever tool looked it up", async () => {
    const vm = "ioc-validator-1";
    const contact = Array.from({ length: 6 }, (_, i) =>
      flow({
        at: at(T0, 5 + i),
        src: "10.1.0.5",
        dest: "198.51.100.140",
        port: 443,
        bytes: 40_000,
        srcVm: vm,
      }),
    );
    const run = await runWith(
      badDomainFinding({ project: "acme-prod", vm, domain }),
      {
        dns_googleapis_com_dns_queries: [dns({ at: at(T0, 4), vm, name: domain, answer: "198.51.100.140" })],
        compute_googleapis_com_vpc_flows: contact,
      },
      { [domain]: { ...malicious(["c2"]), tags: ["c2", "sinkholed"] } },
    );
    assert.equal(run.conclusion.verdict, "true_positive", run.conclusion.summary);
  });

  it("a workload resolving a malicious domain three times is a true_positive, even with no connection seen", async () => {
    const vm = "web-3";
    const run = await runWith(
      badDomainFinding(),
      {
        dns_googleapis_com_dns_queries: [3, 13, 23].map((m) =>
          dns({ at: at(T0, m), vm, name: domain, answer: "198.51.100.140" }),
        ),
        ...quietLogs(vm),
      },
      { [domain]: malicious(["c2"]) },
    );
    assert.equal(run.conclusion.verdict, "true_positive", run.conclusion.summary);
    assert.equal(run.conclusion.confidence, 0.72);
  });

  it("a bucket configured as a website, with no reads and no site-like name, is one signal: not dismissed", async () => {
    const bucket = "acme-exports-2025";
    const run = await runWith(publicBucketFinding({ project: "acme-prod", bucket }), {
      cloudaudit_googleapis_com_activity: [
        publicGrant(bucket, "web-team@acme.example", '{"website":{"mainPageSuffix":"index.html"}}'),
      ],
    });
    assert.ok(!["benign", "false_positive"].includes(run.conclusion.verdict), run.conclusion.summary);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Finding } from "../../../functions/src/domain/finding.js";
import {
  MIN_DISMISSAL_SIGNALS,
  requireCorroboration,
} from "../../../functions/src/model/offline/concluder/corroboration.js";
import type { Decision } from "../../../functions/src/model/offline/concluder/decision.js";
import { SECURITY_TOOL } from "../../../functions/src/model/offline/concluder/rules/bad-indicator.js";
import { classifyRow } from "../../../functions/src/model/offline/evidence/classify.js";
import { iamGrant, quietLogs, T0 } from "./support/evidence.js";
import { badDomainFinding, iamGrantFinding } from "./support/findings.js";
import { investigate, type Run } from "./support/harness.js";
import { at, dns, syslog, type Tables } from "./support/logs.js";
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

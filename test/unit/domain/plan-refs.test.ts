import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { PlanDraftSchema } from "../../../functions/src/domain/plan.js";
import { parseReference, referencesIn, resolveArguments } from "../../../functions/src/domain/plan-refs.js";
import { planProblems } from "../../../functions/src/domain/plan-rules.js";
import { toGeminiJsonSchema } from "../../../functions/src/model/gemini-schema.js";
import { jsonSchemaOf } from "../../../functions/src/model/json-schema.js";
import { stepResult } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";

const miner = sccFinding("v1-cryptominer");
const grant = sccFinding("v1-iam-anomalous-grant");

describe("plan references: parsing", () => {
  it("reads whole-value references to the finding and to earlier steps", () => {
    assert.deepEqual(parseReference("{{finding.principal}}"), {
      source: "finding",
      field: "principal",
      text: "{{finding.principal}}",
    });
    assert.deepEqual(parseReference("{{ steps.dns-lookups.ips }}"), {
      source: "step",
      stepId: "dns-lookups",
      field: "ips",
      text: "{{ steps.dns-lookups.ips }}",
    });
    assert.equal(parseReference("45.9.148.108"), undefined, "a plain value is not a reference");
  });

  it("rejects references spliced into text, unknown fields and malformed paths", () => {
    const spliced = parseReference("SELECT * WHERE ip = '{{finding.ips}}'");
    assert.ok(spliced && "error" in spliced && /whole value/.test(spliced.error));
    const unknown = parseReference("{{finding.password}}");
    assert.ok(unknown && "error" in unknown && /unknown finding reference/.test(unknown.error));
    const output = parseReference("{{steps.intel.rows}}");
    assert.ok(output && "error" in output && /unknown step output/.test(output.error));
    const badId = parseReference("{{steps.Not An Id.ips}}");
    assert.ok(badId && "error" in badId && /no valid step id/.test(badId.error));
    const other = parseReference("{{env.HOME}}");
    assert.ok(other && "error" in other && /not a reference/.test(other.error));
  });

  it("finds references at any depth of the arguments", () => {
    const found = referencesIn({ a: ["{{finding.ips}}", { b: "{{steps.s1.domains}}" }], n: 3, t: "plain" });
    assert.deepEqual(
      found.map((r) => ("error" in r ? r.error : r.text)),
      ["{{finding.ips}}", "{{steps.s1.domains}}"],
    );
  });
});

describe("plan references: resolution", () => {
  it("replaces finding references with typed values read from the finding's fields", () => {
    const out = resolveArguments(
      {
        indicators: "{{finding.indicators}}",
        when: "{{finding.eventTime}}",
        nested: { ips: "{{finding.publicIps}}" },
        pageSize: 50,
      },
      { finding: miner, results: [] },
    );
    assert.ok(out.ok);
    assert.deepEqual(out.args, {
      indicators: [
        { type: "ip", value: "45.9.148.108" },
        { type: "domain", value: "pool.supportxmr.com" },
        { type: "hash", value: "3f5a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19" },
        { type: "hash", value: "aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44" },
        { type: "hash", value: "bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55" },
      ],
      when: "2024-05-14T09:31:07.123Z",
      nested: { ips: ["45.9.148.108"] },
      pageSize: 50,
    });
    const principal = resolveArguments({ who: "{{finding.principal}}" }, { finding: grant, results: [] });
    assert.deepEqual(principal, { ok: true, args: { who: "ci-deployer@acme-prod.iam.gserviceaccount.com" } });
  });

  it("fails naming the reference when the finding lacks the field", () => {
    const out = resolveArguments({ who: "{{finding.principal}}" }, { finding: miner, results: [] });
    assert.deepEqual(out, {
      ok: false,
      reason: "{{finding.principal}}: the finding has no principal (access.principalEmail)",
    });
  });

  it("reads an earlier step's indicators by type, and fails when that step failed, is missing or found none", () => {
    const dns = stepResult("dns", {
      iocs: [
        { type: "ip", value: "198.51.100.9", context: "resolved" },
        { type: "domain", value: "evil.example", context: "queried" },
      ],
    });
    assert.deepEqual(resolveArguments({ ips: "{{steps.dns.ips}}" }, { finding: miner, results: [dns] }), {
      ok: true,
      args: { ips: ["198.51.100.9"] },
    });
    const failed = stepResult("dns", { status: "failed", outcome: "failed" });
    assert.deepEqual(resolveArguments({ ips: "{{steps.dns.ips}}" }, { finding: miner, results: [failed] }), {
      ok: false,
      reason: "{{steps.dns.ips}}: step dns failed",
    });
    assert.deepEqual(resolveArguments({ ips: "{{steps.dns.ips}}" }, { finding: miner, results: [] }), {
      ok: false,
      reason: "{{steps.dns.ips}}: step dns has no result yet",
    });
    assert.deepEqual(resolveArguments({ h: "{{steps.dns.hashes}}" }, { finding: miner, results: [dns] }), {
      ok: false,
      reason: "{{steps.dns.hashes}}: step dns reported no hash",
    });
  });
});

describe("plan schema and rules for fixed calls", () => {
  const draft = (calls: unknown, extra: Record<string, unknown> = {}) => ({
    objective: "o",
    successCriteria: ["c"],
    steps: [
      { id: "dns", description: "d", tools: ["log_query"], expected: "e" },
      { id: "intel", description: "d", tools: ["threat_intel_lookup"], expected: "e", calls, ...extra },
    ],
  });
  const rules = { allowedTools: ["log_query", "threat_intel_lookup"], maxSteps: 10 };

  it("accepts a step with calls and a decisive mark, and rejects calls that are not objects with a tool", () => {
    const ok = PlanDraftSchema.parse(
      draft([{ tool: "threat_intel_lookup", args: { indicators: "{{finding.indicators}}" } }], {
        decisive: true,
      }),
    );
    assert.equal(ok.steps[1]?.calls?.length, 1);
    assert.equal(ok.steps[1]?.decisive, true);
    assert.equal(ok.steps[0]?.calls, undefined, "calls stay optional");
    assert.equal(PlanDraftSchema.safeParse(draft([])).success, false, "an empty call list says nothing");
    assert.equal(PlanDraftSchema.safeParse(draft([{ args: {} }])).success, false);
    assert.equal(PlanDraftSchema.safeParse(draft([{ tool: "x", args: "ip=1" }])).success, false);
  });

  it("reaches Gemini's planner: the response schema derived from the plan schema has calls and decisive", () => {
    const schema = toGeminiJsonSchema(jsonSchemaOf(PlanDraftSchema));
    const at = (node: JsonObject, ...path: string[]): JsonObject =>
      path.reduce((n, key) => n[key] as JsonObject, node);
    const step = at(schema, "properties", "steps", "items", "properties");
    assert.deepEqual(at(step, "calls", "items", "required"), ["tool", "args"]);
    assert.equal(at(step, "calls").maxItems, 8);
    assert.equal(at(step, "calls", "items", "properties", "args").type, "object");
    assert.equal(at(step, "decisive").type, "boolean");
    const required = at(schema, "properties", "steps", "items").required as string[];
    assert.ok(!required.includes("calls") && !required.includes("decisive"), "both stay optional");
  });

  it("names a fixed call to a tool outside its step, a broken reference and a read of a step it does not depend on", () => {
    const parsed = PlanDraftSchema.parse(
      draft([
        { tool: "log_query", args: { sql: "SELECT 1" } },
        { tool: "threat_intel_lookup", args: { ips: "{{steps.dns.ips}}", x: "a {{finding.ips}}" } },
      ]),
    );
    assert.deepEqual(planProblems(parsed.steps, rules), [
      'step "intel" fixes a call to "log_query", which is not among its tools',
      'step "intel" reads {{steps.dns.ips}} but does not depend on step "dns"; add it to dependsOn',
      'step "intel": "a {{finding.ips}}" mixes a reference with other text; a reference must be the whole value',
    ]);
    const fixed = PlanDraftSchema.parse(
      draft([{ tool: "threat_intel_lookup", args: { ips: "{{steps.dns.ips}}" } }], { dependsOn: ["dns"] }),
    );
    assert.deepEqual(planProblems(fixed.steps, rules), []);
  });
});

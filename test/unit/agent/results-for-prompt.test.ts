import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { askConcluder } from "../../../functions/src/agent/concluder.js";
import { askReflector } from "../../../functions/src/agent/reflector.js";
import { groupIocs } from "../../../functions/src/agent/result-summary.js";
import type { ConclusionDraft } from "../../../functions/src/domain/conclusion.js";
import type { Ioc } from "../../../functions/src/domain/ioc.js";
import { plan, step, stepResult } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

// What a planned flow query reports: many destinations seen in the same runbook.
const CONTEXT = "seen in runbook vpc_flows_from_instance results";
const flowIocs: Ioc[] = Array.from({ length: 24 }, (_, i) => ({
  type: "ip",
  value: `203.0.113.${i + 1}`,
  context: CONTEXT,
}));
const mixed: Ioc[] = [
  { type: "domain", value: "xmr.pool-relay.top", context: "threat intel: malicious" },
  { type: "ip", value: "198.51.100.7", path: "connections[0].destinationIp" },
  { type: "hash", value: "a".repeat(64), context: "threat intel: malicious" },
];

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("results as the reflector and concluder read them", () => {
  it("groups indicators by context and type without losing a value, context or path", () => {
    const groups = groupIocs([...flowIocs, ...mixed]);
    const back: Ioc[] = groups.flatMap((g) =>
      Object.entries(g.values).flatMap(([type, values]) =>
        (values ?? []).map((value) => ({
          type: type as Ioc["type"],
          value,
          ...(g.context !== undefined ? { context: g.context } : {}),
          ...(g.paths?.[value] !== undefined ? { path: g.paths[value] } : {}),
        })),
      ),
    );
    const key = (i: Ioc) => JSON.stringify([i.type, i.value, i.context ?? null, i.path ?? null]);
    assert.deepEqual(back.map(key).sort(), [...flowIocs, ...mixed].map(key).sort());
    assert.equal(groups.length, 3, "one group per context, the context-less one included");
  });

  it("the reflector's prompt states a shared context once and every indicator", async () => {
    const model = new ScriptedModel({
      reflector: [{ json: { achieved: false, insights: [], updates: [], rationale: "more" } }],
    });
    await askReflector({
      investigationId: "inv",
      finding: sccFinding("v1-cryptominer"),
      plan: plan([step("egress", { status: "done" })]),
      results: [stepResult("egress", { iocs: flowIocs })],
      justFinished: ["egress"],
      model,
      tools: ["logs_query"],
      actingTools: [],
      maxSteps: 8,
      revisionsLeft: 2,
    });
    const first = model.requestsFor("reflector")[0]?.messages[0];
    const text = first?.role === "user" ? first.text : "";
    assert.equal(occurrences(text, CONTEXT), 1);
    for (const ioc of flowIocs) assert.ok(text.includes(ioc.value), ioc.value);
    assert.ok(!text.includes('"error"'), "no error field on a result without one");
  });

  it("the concluder's prompt states a shared context once and every indicator", async () => {
    const draft: ConclusionDraft = {
      verdict: "true_positive",
      confidence: 0.9,
      severity: "HIGH",
      summary: "miner",
      mitre: [],
      keyFindings: [],
      iocs: [],
      recommendedActions: [],
      openQuestions: [],
    };
    const model = new ScriptedModel({ concluder: [{ json: draft }] });
    await askConcluder({
      investigationId: "inv",
      finding: sccFinding("v1-cryptominer"),
      plan: plan([step("egress", { status: "done" })]),
      results: [stepResult("egress", { iocs: flowIocs })],
      reflections: [],
      model,
      mode: "conclude",
      reason: "every step has finished",
      now: new Date("2024-05-14T10:05:00.000Z"),
    });
    const first = model.requestsFor("concluder")[0]?.messages[0];
    const text = first?.role === "user" ? first.text : "";
    assert.equal(occurrences(text, CONTEXT), 1);
    for (const ioc of flowIocs) assert.ok(text.includes(ioc.value), ioc.value);
  });
});

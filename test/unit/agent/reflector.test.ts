import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ReflectorBrief } from "../../../functions/src/agent/briefs.js";
import { askReflector } from "../../../functions/src/agent/reflector.js";
import { ModelOutputError } from "../../../functions/src/domain/errors.js";
import { applyPlanUpdates } from "../../../functions/src/domain/plan-rules.js";
import type { ReflectionDraft } from "../../../functions/src/domain/reflection.js";
import { REPAIR_MARKER } from "../../../functions/src/model/structured.js";
import { plan, step, stepResult } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";
import { splitFences } from "../prompts/support.js";

const finding = sccFinding("v1-cryptominer");
const TOOLS = ["intel_lookup", "logs_query"];
const rules = { allowedTools: TOOLS, maxSteps: 8, maxRevisions: 3 };

const before = plan(
  [
    step("intel", { status: "done", description: "Look up 45.9.148.108" }),
    step("flows", { status: "failed", description: "VPC flows to 45.9.148.108", tools: ["logs_query"] }),
    step("dns", { description: "DNS queries for pool.supportxmr.com", tools: ["logs_query"] }),
    step("owner", { description: "Who created web-1", tools: ["logs_query"] }),
    step("old", { status: "cancelled", cancelReason: "superseded", description: "Old idea" }),
  ],
  { revision: 1 },
);
const results = [
  stepResult("intel", { summary: "45.9.148.108 is a supportxmr pool" }),
  stepResult("flows", { status: "failed", outcome: "failed", summary: "flow table empty", error: "no rows" }),
];

const draft: ReflectionDraft = {
  achieved: false,
  insights: ["The pool IP is confirmed; flows are missing from the table, so try firewall logs."],
  updates: [
    {
      op: "add",
      step: {
        id: "fw-logs",
        description: "Firewall logs for 45.9.148.108:3333 from web-1",
        tools: ["logs_query"],
        expected: "connections around eventTime",
        dependsOn: [],
      },
    },
    { op: "update", id: "owner", description: "Who created web-1 and with which service account" },
    { op: "cancel", id: "dns", reason: "the pool IP already settles the destination" },
  ],
  rationale: "Flows failed; widen to firewall logs and drop the DNS check.",
};

function reflect(model: ScriptedModel) {
  return askReflector({
    investigationId: "inv-test",
    finding,
    plan: before,
    results,
    justFinished: ["intel", "flows"],
    model,
    tools: TOOLS,
    actingTools: [],
    maxSteps: rules.maxSteps,
    revisionsLeft: rules.maxRevisions - before.revision,
  });
}

describe("askReflector", () => {
  it("sends the whole plan (cancelled steps included), the results and the budgets", async () => {
    const model = new ScriptedModel({
      reflector: [{ json: draft, usage: { inputTokens: 700, outputTokens: 90 } }],
    });
    const { draft: answer, usage } = await reflect(model);

    assert.deepEqual(answer, draft);
    assert.deepEqual(usage, { llmCalls: 1, inputTokens: 700, outputTokens: 90 });
    assert.equal(model.requests.length, 1);
    const sent = model.requests[0]!;
    assert.equal(sent.brief.role, "reflector");
    assert.ok(sent.responseSchema);
    assert.ok(sent.system.includes("Only use these tools: `intel_lookup`, `logs_query`."));
    assert.ok(
      sent.system.includes("Keep the whole plan within 8 steps; the plan may still change 2 more time(s)."),
    );
    const user = sent.messages[0];
    assert.ok(user && user.role === "user");
    assert.ok(user.text.includes('"id": "old",\n    "status": "cancelled"'), "the cancelled step is shown");
    assert.ok(user.text.includes("(`intel`, `flows`)"));
    const fenced = splitFences(user.text).fences.find((f) => f.kind === "step_results");
    assert.ok(fenced);
    assert.deepEqual(
      (JSON.parse(fenced.body) as { stepId: string; status: string; error?: string }[]).map((r) => [
        r.stepId,
        r.status,
        r.error,
      ]),
      [
        ["intel", "done", undefined],
        ["flows", "failed", "no rows"],
      ],
    );
    const context = sent.brief as ReflectorBrief;
    assert.deepEqual(
      [context.revisionsLeft, context.maxSteps, context.justFinished],
      [2, 8, ["intel", "flows"]],
    );
  });

  it("yields updates that applyPlanUpdates applies, keeping cancelled steps in the plan", async () => {
    const model = new ScriptedModel({ reflector: [{ json: draft }] });
    const { draft: answer } = await reflect(model);
    const out = applyPlanUpdates(before, answer.updates, rules);

    assert.deepEqual(out.refused, []);
    assert.equal(out.applied.length, 3);
    assert.equal(out.plan.revision, 2);
    assert.deepEqual(
      out.plan.steps.map((s) => [s.id, s.status]),
      [
        ["intel", "done"],
        ["flows", "failed"],
        ["dns", "cancelled"],
        ["owner", "pending"],
        ["old", "cancelled"],
        ["fw-logs", "pending"],
      ],
    );
    assert.equal(
      out.plan.steps.find((s) => s.id === "dns")?.cancelReason,
      "the pool IP already settles the destination",
    );
    assert.equal(
      out.plan.steps.find((s) => s.id === "owner")?.description,
      "Who created web-1 and with which service account",
    );

    // A later reflection cannot bring the cancelled step back under its id.
    const again = applyPlanUpdates(
      out.plan,
      [
        {
          op: "add",
          step: { id: "dns", description: "retry DNS", tools: ["logs_query"], expected: "x", dependsOn: [] },
        },
      ],
      rules,
    );
    assert.equal(again.plan, out.plan);
    assert.match(again.refused[0]?.reason ?? "", /was cancelled earlier and stays cancelled/);
  });

  it("repairs a reflection that breaks the schema once, then fails typed", async () => {
    const bad = { ...draft, updates: [{ op: "rename", id: "dns" }] };
    const model = new ScriptedModel({ reflector: [{ json: bad }, { json: bad }] });
    await assert.rejects(reflect(model), ModelOutputError);
    assert.equal(model.requests.length, 2);
    const ask = model.requests[1]!.messages.at(-1);
    assert.ok(ask && ask.role === "user" && ask.text.startsWith(REPAIR_MARKER));
    assert.match(ask.text, /\$\.updates\[0\]\.op: /);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PlannerBrief } from "../../../functions/src/agent/briefs.js";
import { askPlanner, plannerPrompt } from "../../../functions/src/agent/planner.js";
import { ModelOutputError } from "../../../functions/src/domain/errors.js";
import type { PlanDraft } from "../../../functions/src/domain/plan.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { REPAIR_MARKER } from "../../../functions/src/model/structured.js";
import { sccFinding } from "../../fixtures/scc.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

const finding = sccFinding("v1-cryptominer");
const tools = [
  { name: "intel_lookup", description: "Threat intel for IPs, domains and hashes." },
  { name: "logs_query", description: "Natural-language questions over Cloud Logging data." },
];
const tables = [{ name: "compute_googleapis_com_vpc_flows", description: "VPC flow logs" }];

function draft(steps: PlanDraft["steps"]): PlanDraft {
  return {
    objective: "Did web-1 run a miner that reached 45.9.148.108, and since when?",
    successCriteria: ["flows to the pool confirmed or ruled out"],
    constraints: ["window: 6h before to 1h after eventTime"],
    steps,
  };
}

const good = draft([
  {
    id: "intel-pool",
    description: "Look up 45.9.148.108 and pool.supportxmr.com",
    tools: ["intel_lookup"],
    expected: "listed as a mining pool",
    dependsOn: [],
  },
  {
    id: "flows",
    description: "VPC flows from web-1 to 45.9.148.108:3333",
    tools: ["logs_query"],
    expected: "flows before eventTime",
    dependsOn: ["intel-pool"],
  },
]);

const withUnknownTool = draft([
  good.steps[0]!,
  {
    id: "malware",
    description: "Scan the binary",
    tools: ["check_malware"],
    expected: "a verdict",
    dependsOn: [],
  },
]);
const UNKNOWN_TOOL_PROBLEM =
  'step "malware" names unknown tool "check_malware"; available: intel_lookup, logs_query';

const userText = (r: GenerateRequest): string => {
  const first = r.messages[0];
  assert.ok(first && first.role === "user");
  return first.text;
};
const plannerContext = (r: GenerateRequest): PlannerBrief => r.brief as PlannerBrief;

function plan(model: ScriptedModel, maxSteps = 10) {
  return askPlanner({ investigationId: "inv-test", finding, model, tools, tables, maxSteps });
}

describe("askPlanner", () => {
  it("sends the tools, the cap and the fenced finding, and returns a pending plan", async () => {
    const model = new ScriptedModel({
      planner: [{ json: good, usage: { inputTokens: 900, outputTokens: 150 } }],
    });
    const { plan: p, usage } = await plan(model, 6);

    assert.equal(model.requests.length, 1);
    const sent = model.requests[0]!;
    assert.equal(sent.brief.role, "planner");
    assert.equal(sent.investigationId, "inv-test");
    assert.ok(sent.system.includes("- `intel_lookup`: Threat intel for IPs, domains and hashes."));
    assert.ok(sent.system.includes("At most 6 steps"));
    assert.ok(sent.system.includes("eventTime (2024-05-14T09:31:07.123Z)"));
    assert.ok(userText(sent).includes('<<<UNTRUSTED_DATA kind="scc_finding">>>'));
    assert.ok(!userText(sent).includes("rejected"));
    assert.ok(sent.responseSchema, "structured output is requested");
    assert.equal(sent.tools, undefined, "the planner gets no tools to call");
    assert.deepEqual(
      plannerContext(sent).tools.map((t) => t.name),
      ["intel_lookup", "logs_query"],
    );
    const rendered = plannerPrompt(plannerContext(sent));
    assert.equal(sent.system, rendered.system, "the system text is the brief's rendering");
    assert.deepEqual(sent.messages, [{ role: "user", text: rendered.user }], "so is the first message");
    assert.deepEqual(plannerContext(sent).problems, []);
    assert.equal(plannerContext(sent).maxSteps, 6);

    assert.equal(p.revision, 0);
    assert.deepEqual(
      p.steps.map((s) => [s.id, s.status, s.addedInRevision, s.dependsOn]),
      [
        ["intel-pool", "pending", 0, []],
        ["flows", "pending", 0, ["intel-pool"]],
      ],
    );
    assert.deepEqual(usage, { llmCalls: 1, inputTokens: 900, outputTokens: 150 });
  });

  it("gives a plan with an unknown tool one corrected attempt that lists the problem", async () => {
    const model = new ScriptedModel({
      planner: [
        { json: withUnknownTool, usage: { inputTokens: 900, outputTokens: 150 } },
        { json: good, usage: { inputTokens: 1_000, outputTokens: 140 } },
      ],
    });
    const { plan: p, usage } = await plan(model);

    assert.equal(model.requests.length, 2);
    const [first, second] = model.requests as [GenerateRequest, GenerateRequest];
    assert.ok(!userText(first).includes("check_malware"));
    assert.ok(
      userText(second).includes(
        "Your previous plan was rejected for these reasons. Return a corrected plan:",
      ),
    );
    assert.ok(userText(second).includes(`- ${UNKNOWN_TOOL_PROBLEM}`));
    assert.deepEqual(plannerContext(second).problems, [UNKNOWN_TOOL_PROBLEM]);
    assert.equal(second.messages.length, 1, "a fresh request, not a repair conversation");
    assert.deepEqual(
      p.steps.map((s) => s.id),
      ["intel-pool", "flows"],
    );
    assert.deepEqual(usage, { llmCalls: 2, inputTokens: 1_900, outputTokens: 290 });
    assert.equal(model.remaining(), 0);
  });

  it("fails with ModelOutputError when the corrected plan is invalid too", async () => {
    const model = new ScriptedModel({ planner: [{ json: withUnknownTool }, { json: withUnknownTool }] });
    await assert.rejects(plan(model), (error: unknown) => {
      assert.ok(error instanceof ModelOutputError);
      assert.equal(error.code, "model_output");
      assert.equal(error.message, `the planner produced an invalid plan twice: ${UNKNOWN_TOOL_PROBLEM}`);
      assert.deepEqual(error.details, { problems: [UNKNOWN_TOOL_PROBLEM] });
      return true;
    });
    assert.equal(model.requests.length, 2, "no third attempt");
  });

  it("treats a plan over the step cap as a problem to correct", async () => {
    const tooLong = draft(
      ["a", "b", "c", "d"].map((id) => ({
        id,
        description: `check ${id}`,
        tools: ["intel_lookup"],
        expected: "x",
        dependsOn: [],
      })),
    );
    const model = new ScriptedModel({ planner: [{ json: tooLong }, { json: good }] });
    const { plan: p } = await plan(model, 3);
    assert.ok(userText(model.requests[1]!).includes("- the plan has 4 steps; at most 3 are allowed"));
    assert.equal(p.steps.length, 2);
  });

  it("repairs output that breaks the schema once, showing the validation errors", async () => {
    const broken = { objective: good.objective, successCriteria: good.successCriteria, steps: [] };
    const model = new ScriptedModel({ planner: [{ json: broken }, { json: good }] });
    const { plan: p } = await plan(model);

    assert.equal(model.requests.length, 2);
    const repair = model.requests[1]!;
    assert.equal(repair.brief.role, "planner");
    const last = repair.messages.at(-1);
    assert.ok(last && last.role === "user");
    assert.ok(last.text.startsWith(REPAIR_MARKER));
    assert.match(last.text, /- \$\.steps: Too small: expected array to have >=1 items/);
    const echoed = repair.messages.at(-2);
    assert.deepEqual(echoed, { role: "model", text: JSON.stringify(broken) });
    assert.equal(p.steps.length, 2);
  });

  it("gives up with a typed ModelOutputError when the repair breaks the schema too", async () => {
    const model = new ScriptedModel({
      planner: ["Here is my plan: check the IP.", { json: { objective: "x" } }],
    });
    await assert.rejects(plan(model), (error: unknown) => {
      assert.ok(error instanceof ModelOutputError);
      assert.match(error.message, /did not produce valid planner output after 2 call\(s\)/);
      const firstIssues = error.details?.firstIssues as string[];
      assert.equal(firstIssues.length, 1);
      assert.match(firstIssues[0]!, /^\$: the answer is not valid JSON \(/);
      const issues = error.details?.issues as string[];
      assert.ok(issues.some((i) => i.startsWith("$.steps: ")));
      return true;
    });
    assert.equal(model.requests.length, 2);
    const repairAsk = model.requests[1]!.messages.at(-1);
    assert.ok(repairAsk && repairAsk.role === "user");
    assert.ok(repairAsk.text.startsWith(REPAIR_MARKER));
    assert.match(repairAsk.text, /- \$: the answer is not valid JSON/);
  });
});

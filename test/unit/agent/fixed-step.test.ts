import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { StepExecutorBrief } from "../../../functions/src/agent/briefs.js";
import { FIXED_CALLS_MODEL } from "../../../functions/src/agent/fixed-step.js";
import { askStepExecutor } from "../../../functions/src/agent/step-executor.js";
import type { FixedCall } from "../../../functions/src/domain/plan.js";
import type { StepReport, StepResult } from "../../../functions/src/domain/results.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { plan, step, stepResult } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";
import { ScriptedModel, type ScriptedResponse } from "../../helpers/scripted-model.js";
import { countFlows, deleteProject, lookupIp, PureRegistry, type PureTool } from "./support.js";

const finding = sccFinding("v1-cryptominer");
const NOW = new Date("2024-05-14T10:00:00.000Z");

/** A log tool whose page of rows is empty for one destination: the answer a model must judge. */
const flowRows: PureTool = {
  name: "flow_rows",
  description: "Flow rows to a destination.",
  parameters: { type: "object", properties: { destination: { type: "string" } } },
  run: (args) =>
    String(args.destination) === "45.9.148.108"
      ? { summary: "3 rows", data: { rows: [{ n: 3 }] } }
      : { summary: "0 rows", data: { rows: [] } },
};

function setup(calls: FixedCall[], script: ScriptedResponse[] = [], priorResults: StepResult[] = []) {
  const theStep = step("pool-check", {
    description: "Check whether the finding's IP is a pool and count flows to it",
    tools: ["lookup_ip", "count_flows", "flow_rows"],
    calls,
  });
  const registry = new PureRegistry([lookupIp, countFlows, flowRows, deleteProject]);
  const model = new ScriptedModel({ executor: script });
  const run = () =>
    askStepExecutor({
      investigationId: "inv-test",
      finding,
      plan: plan([theStep]),
      step: theStep,
      priorResults,
      model,
      toolbox: new ToolBox(registry, () => true),
      maxIterations: 4,
      logger: silentLogger,
      now: () => NOW,
    });
  return { registry, model, run };
}

describe("askStepExecutor: a step whose calls the plan fixed", () => {
  it("runs the calls with resolved references and writes its report without asking the model", async () => {
    const { registry, model, run } = setup([
      { tool: "lookup_ip", args: { ip: "45.9.148.108" } },
      { tool: "count_flows", args: { destination: "{{finding.domains}}" } },
    ]);
    const result = await run();

    assert.equal(model.requests.length, 0, "no executor round: the scripted model records every request");
    assert.deepEqual(
      registry.runs.map((r) => [r.name, r.args]),
      [
        ["lookup_ip", { ip: "45.9.148.108" }],
        ["count_flows", { destination: ["pool.supportxmr.com"] }],
      ],
    );
    assert.equal(result.status, "done");
    assert.equal(result.outcome, "answered");
    assert.equal(result.model, FIXED_CALLS_MODEL);
    assert.equal(result.iterations, 0);
    assert.deepEqual(result.usage, { llmCalls: 0, inputTokens: 0, outputTokens: 0 });
    assert.deepEqual(
      result.toolCalls.map((c) => c.id),
      ["pool-check-plan-0", "pool-check-plan-1"],
    );
    assert.deepEqual(result.facts, [
      "lookup_ip: 45.9.148.108 is a known supportxmr mining pool",
      "count_flows: 412 flows to pool.supportxmr.com",
    ]);
    assert.match(
      result.summary,
      /ran 2 planned call\(s\) of lookup_ip, count_flows without a model round: 2 answered/,
    );
    assert.deepEqual(result.iocs, [{ type: "ip", value: "45.9.148.108", context: "supportxmr mining pool" }]);
  });

  it("fails before any call runs when a reference has no value, naming it", async () => {
    const { registry, model, run } = setup([
      { tool: "lookup_ip", args: { ip: "45.9.148.108" } },
      { tool: "count_flows", args: { destination: "{{finding.principal}}" } },
    ]);
    const result = await run();
    assert.equal(model.requests.length, 0);
    assert.equal(registry.runs.length, 0, "no call runs when one of the step's calls has a hole");
    assert.equal(result.status, "failed");
    assert.equal(result.outcome, "failed");
    assert.equal(
      result.error,
      "planned call arguments could not be resolved: call 2 (count_flows): {{finding.principal}}: the finding has no principal (access.principalEmail)",
    );
  });

  it("fails the same way when the step it reads failed", async () => {
    const { registry, run } = setup(
      [{ tool: "lookup_ip", args: { ip: "{{steps.dns.ips}}" } }],
      [],
      [stepResult("dns", { status: "failed", outcome: "failed" })],
    );
    const result = await run();
    assert.equal(registry.runs.length, 0);
    assert.equal(result.status, "failed");
    assert.match(result.error ?? "", /\{\{steps\.dns\.ips\}\}: step dns failed/);
  });

  it("hands an empty answer to the executor model as its first round, which then judges", async () => {
    const report: StepReport = {
      outcome: "no_data",
      summary: "No flows to the domain in the window.",
      facts: ["flow_rows: 0 rows"],
      iocs: [],
    };
    const { model, registry, run } = setup(
      [{ tool: "flow_rows", args: { destination: "pool.example" } }],
      [{ json: report }],
    );
    const result = await run();

    assert.equal(registry.runs.length, 1, "the planned call ran once, not again by the model");
    assert.equal(model.requests.length, 1, "one model round: the judgment, not the call");
    const request = model.requests[0]!;
    assert.deepEqual(request.messages.slice(1), [
      {
        role: "model",
        toolCalls: [{ id: "pool-check-plan-0", name: "flow_rows", args: { destination: "pool.example" } }],
      },
      {
        role: "tool",
        responses: [
          {
            id: "pool-check-plan-0",
            name: "flow_rows",
            response: { ok: true, summary: "0 rows", untrusted_data: { rows: [] } },
          },
        ],
      },
    ]);
    assert.equal((request.brief as StepExecutorBrief).iteration, 2, "the planned round counts as round 1");
    assert.equal(result.outcome, "no_data");
    assert.equal(result.summary, report.summary);
    assert.equal(result.toolCalls.length, 1);
    assert.equal(result.iterations, 2);
  });

  it("refuses a fixed call to a tool outside the step in code, like a model's call", async () => {
    const { registry, model, run } = setup(
      [{ tool: "delete_project", args: { project: "acme-prod" } }],
      [{ json: { outcome: "failed", summary: "The planned call was refused.", facts: [], iocs: [] } }],
    );
    const result = await run();
    assert.equal(registry.runsOf("delete_project").length, 0);
    assert.match(
      result.toolCalls[0]?.summary ?? "",
      /^refused: tool "delete_project" is not part of this step/,
    );
    assert.equal(model.requests.length, 1, "a refused round goes to the model for judgment");
    assert.equal(result.status, "failed");
  });
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { askStepExecutor } from "../../../functions/src/agent/step-executor.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import type { ToolDeclaration } from "../../../functions/src/model/port.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { ToolContext, ToolOutput } from "../../../functions/src/tools/port.js";
import { ToolBox, type ToolboxRegistry } from "../../../functions/src/tools/toolbox.js";
import { plan, step } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

/** A registry with one tool that, like the log-analysis sub-agent, spends model tokens itself. */
class SpendingRegistry implements ToolboxRegistry {
  readonly contexts: ToolContext[] = [];
  names(): string[] {
    return ["ask_logs"];
  }
  declarations(): ToolDeclaration[] {
    return [
      { name: "ask_logs", description: "asks a sub-agent", parameters: { type: "object", properties: {} } },
    ];
  }
  async run(_name: string, _args: unknown, ctx: ToolContext): Promise<ToolOutput> {
    this.contexts.push(ctx);
    return {
      ok: true,
      summary: "3 rows",
      data: {},
      usage: { llmCalls: 5, inputTokens: 1_000, outputTokens: 200 },
    };
  }
}

test("a tool's own model usage is charged to the step, and the tool learns its step and call ids", async () => {
  const theStep = step("logs", { tools: ["ask_logs"] });
  const registry = new SpendingRegistry();
  const model = new ScriptedModel({
    executor: [
      {
        toolCalls: [{ id: "call-7", name: "ask_logs", args: {} as JsonObject }],
        usage: { llmCalls: 1, inputTokens: 10, outputTokens: 1 },
      },
      {
        text: JSON.stringify({ outcome: "answered", summary: "done", facts: [], iocs: [] }),
        usage: { llmCalls: 1, inputTokens: 20, outputTokens: 2 },
      },
    ],
  });
  const result = await askStepExecutor({
    investigationId: "inv-test",
    finding: sccFinding("v1-cryptominer"),
    plan: plan([theStep]),
    step: theStep,
    priorResults: [],
    model,
    toolbox: new ToolBox(registry, () => true),
    maxIterations: 3,
    logger: silentLogger,
    now: () => new Date("2024-05-14T10:00:00Z"),
  });
  assert.deepEqual(result.usage, { llmCalls: 7, inputTokens: 1_030, outputTokens: 203 });
  assert.equal(registry.contexts[0]?.stepId, "logs");
  assert.equal(registry.contexts[0]?.toolCallId, "call-7");
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { askStepExecutor } from "../../../functions/src/agent/step-executor.js";
import { DeadlineExceededError } from "../../../functions/src/domain/errors.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import type {
  EmbedRequest,
  GenerateRequest,
  GenerateResponse,
  Model,
  ToolDeclaration,
} from "../../../functions/src/model/port.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { ToolContext, ToolOutput } from "../../../functions/src/tools/port.js";
import { ToolBox, type ToolboxRegistry } from "../../../functions/src/tools/toolbox.js";
import { plan, step } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";
import { ScriptedModel, type ScriptedResponse } from "../../helpers/scripted-model.js";

const finding = sccFinding("v1-cryptominer");
const theStep = step("flows", {
  description: "Count flows from the VM to the pool",
  tools: ["slow_tool"],
  expected: "flows",
});
const thePlan = plan([theStep]);
const NOW = new Date("2024-05-14T10:00:00.000Z");

/** A tool that takes `ms`, records when it started and what context it was given. */
class SlowRegistry implements ToolboxRegistry {
  readonly runs: Array<{ at: number; ctx: ToolContext; args: unknown }> = [];
  constructor(private readonly ms: number) {}
  names(): string[] {
    return ["slow_tool"];
  }
  declarations(): ToolDeclaration[] {
    return [{ name: "slow_tool", description: "slow", parameters: { type: "object", properties: {} } }];
  }
  async run(_name: string, args: unknown, ctx: ToolContext): Promise<ToolOutput> {
    this.runs.push({ at: performance.now(), ctx, args });
    await sleep(this.ms);
    return { ok: true, summary: "done", data: { ok: true } };
  }
}

/**
 * A provider that ignores the abort signal (as an adapter with a bug would): it records every
 * call with its arrival time, takes `ms`, and always asks for one more tool call. What stops
 * the loop must then be the executor itself.
 */
class DeafModel implements Model {
  readonly name = "deaf";
  readonly offline = false;
  readonly calls: number[] = [];
  constructor(
    private readonly ms: number,
    private readonly onCall: (n: number) => void = () => {},
  ) {}
  async generate(_request: GenerateRequest): Promise<GenerateResponse> {
    this.calls.push(performance.now());
    this.onCall(this.calls.length);
    await sleep(this.ms);
    return {
      toolCalls: [{ id: `c${this.calls.length}`, name: "slow_tool", args: {} }],
      usage: { llmCalls: 1, inputTokens: 10, outputTokens: 5 },
      model: this.name,
    };
  }
  async embed(_request: EmbedRequest): Promise<number[][]> {
    return [];
  }
}

function run(
  model: Model,
  registry: ToolboxRegistry,
  extra: {
    signal?: AbortSignal;
    maxToolCallsPerTurn?: number;
    tokenAllowance?: number;
    maxIterations?: number;
  },
) {
  return askStepExecutor({
    investigationId: "inv-test",
    finding,
    plan: thePlan,
    step: theStep,
    priorResults: [],
    model,
    toolbox: new ToolBox(registry, () => true),
    maxIterations: extra.maxIterations ?? 30,
    logger: silentLogger,
    now: () => NOW,
    ...(extra.signal ? { signal: extra.signal } : {}),
    ...(extra.maxToolCallsPerTurn ? { maxToolCallsPerTurn: extra.maxToolCallsPerTurn } : {}),
    ...(extra.tokenAllowance !== undefined ? { tokenAllowance: extra.tokenAllowance } : {}),
  });
}

describe("the step's deadline stops the step", () => {
  it("makes no model call and runs no tool after the deadline, even with a model that ignores the signal", async () => {
    const controller = new AbortController();
    const deadline = new DeadlineExceededError("step deadline passed");
    let abortedAt = Number.POSITIVE_INFINITY;
    // The deadline fires in the middle of the third model call.
    const model = new DeafModel(40, (n) => {
      if (n === 3)
        setTimeout(() => {
          abortedAt = performance.now();
          controller.abort(deadline);
        }, 10);
    });
    const registry = new SlowRegistry(30);
    await assert.rejects(run(model, registry, { signal: controller.signal }), (error) => error === deadline);
    // Give an abandoned loop time to show itself: 10 more rounds would fit in this wait.
    await sleep(600);
    assert.ok(model.calls.length >= 2, "the step was working before the deadline");
    assert.equal(model.calls.filter((at) => at > abortedAt).length, 0, "model calls after the deadline");
    assert.equal(registry.runs.filter((r) => r.at > abortedAt).length, 0, "tool runs after the deadline");
  });

  it("hands the step's signal to every tool it runs", async () => {
    const registry = new SlowRegistry(1);
    const controller = new AbortController();
    const model = new ScriptedModel({
      executor: [
        { toolCalls: [{ name: "slow_tool" }] },
        { json: { outcome: "answered", summary: "ok", facts: [], iocs: [] } },
      ],
    });
    await run(model, registry, { signal: controller.signal });
    assert.equal(registry.runs.length, 1);
    assert.equal(registry.runs[0]?.ctx.signal, controller.signal);
  });

  it("a scripted model's answer in flight is cut short by the deadline, and nothing runs after it", async () => {
    const registry = new SlowRegistry(1);
    const controller = new AbortController();
    const model = new ScriptedModel(
      { executor: Array.from({ length: 5 }, () => ({ toolCalls: [{ name: "slow_tool" }] })) },
      { latencyMs: 10_000 },
    );
    setTimeout(() => controller.abort(new DeadlineExceededError("deadline")), 50);
    const started = performance.now();
    await assert.rejects(run(model, registry, { signal: controller.signal }), DeadlineExceededError);
    assert.ok(performance.now() - started < 5_000, "the 10 s answer was not waited for");
    assert.equal(registry.runs.length, 0);
    assert.equal(model.calls.length, 1);
  });
});

describe("the cap on tool calls per model turn", () => {
  const sixCalls: ScriptedResponse = {
    toolCalls: Array.from({ length: 6 }, (_, k) => ({ id: `t${k}`, name: "slow_tool", args: { k } })),
  };
  const report = { json: { outcome: "answered", summary: "ok", facts: [], iocs: [] } };

  it("runs the first N calls of a turn and answers the rest with a refusal the model reads", async () => {
    const registry = new SlowRegistry(1);
    const model = new ScriptedModel({ executor: [sixCalls, report] });
    const result = await run(model, registry, { maxToolCallsPerTurn: 4 });
    assert.deepEqual(
      registry.runs.map((r) => (r.args as JsonObject).k),
      [0, 1, 2, 3],
    );
    const tool = model.requestsFor("executor")[1]?.messages.at(-1);
    assert.ok(tool?.role === "tool");
    assert.equal(tool.responses.length, 6, "every call of the turn is answered");
    const refused = tool.responses.filter((r) => r.response.ok === false);
    assert.deepEqual(
      refused.map((r) => r.id),
      ["t4", "t5"],
    );
    for (const r of refused)
      assert.match(String(r.response.summary), /at most 4 tool call\(s\) run per turn/);
    assert.equal(result.toolCalls.filter((c) => !c.ok).length, 2, "refusals are recorded on the result");
  });

  it("runs every call when no cap is set (the cap is what limits)", async () => {
    const registry = new SlowRegistry(1);
    const model = new ScriptedModel({ executor: [sixCalls, report] });
    await run(model, registry, {});
    assert.equal(registry.runs.length, 6);
  });

  it("splits what is left of the step's allowance across the calls it runs, as each tool's token share", async () => {
    const registry = new SlowRegistry(1);
    const model = new ScriptedModel({
      executor: [{ ...sixCalls, usage: { inputTokens: 800, outputTokens: 200 } }, report],
    });
    await run(model, registry, { maxToolCallsPerTurn: 4, tokenAllowance: 9_000 });
    assert.deepEqual(
      registry.runs.map((r) => r.ctx.tokenAllowance),
      [2_000, 2_000, 2_000, 2_000],
    );
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BriefRole } from "../../../functions/src/agent/briefs.js";
import { ModelOutputError, ModelUnavailableError } from "../../../functions/src/domain/errors.js";
import { metered } from "../../../functions/src/model/metered.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

const ask = (role: BriefRole): GenerateRequest => ({
  brief: someBrief(role),
  system: "s",
  messages: [{ role: "user", text: "x" }],
});
const used = (inputTokens: number, outputTokens: number, model?: string) => ({
  text: "ok",
  usage: { inputTokens, outputTokens },
  ...(model ? { model } : {}),
});

describe("metered", () => {
  it("sums usage and calls in total, per role and per answering model", async () => {
    const inner = new ScriptedModel({
      planner: [used(100, 10)],
      executor: [used(200, 20), new ModelUnavailableError("503"), used(300, 30, "offline-playbook")],
    });
    const meter = metered(inner);
    await meter.model.generate(ask("planner"));
    await meter.model.generate(ask("executor"));
    await assert.rejects(meter.model.generate(ask("executor")), ModelUnavailableError);
    await meter.model.generate(ask("executor"));

    assert.deepEqual(meter.totals(), {
      calls: 3,
      failures: 1,
      usage: { llmCalls: 3, inputTokens: 600, outputTokens: 60 },
    });
    assert.deepEqual(meter.byRole(), {
      planner: { calls: 1, failures: 0, usage: { llmCalls: 1, inputTokens: 100, outputTokens: 10 } },
      executor: { calls: 2, failures: 1, usage: { llmCalls: 2, inputTokens: 500, outputTokens: 50 } },
    });
    assert.deepEqual(meter.byModel(), {
      scripted: { calls: 2, failures: 0, usage: { llmCalls: 2, inputTokens: 300, outputTokens: 30 } },
      "offline-playbook": {
        calls: 1,
        failures: 0,
        usage: { llmCalls: 1, inputTokens: 300, outputTokens: 30 },
      },
    });
    assert.equal(meter.model.name, "scripted");
  });

  it("hands out copies and can be reset", async () => {
    const meter = metered(new ScriptedModel([used(1, 1), used(2, 2)]));
    await meter.model.generate(ask("concluder"));
    const reading = meter.totals();
    reading.usage.inputTokens = 999;
    assert.equal(meter.totals().usage.inputTokens, 1);
    meter.reset();
    assert.deepEqual(meter.totals(), {
      calls: 0,
      failures: 0,
      usage: { llmCalls: 0, inputTokens: 0, outputTokens: 0 },
    });
    await meter.model.generate(ask("concluder"));
    assert.equal(meter.totals().usage.inputTokens, 2);
  });

  it("counts embedding calls and texts", async () => {
    const meter = metered(new ScriptedModel([]));
    await meter.model.embed({ texts: ["a", "b"], task: "RETRIEVAL_DOCUMENT" });
    await meter.model.embed({ texts: ["c"], task: "RETRIEVAL_QUERY" });
    assert.deepEqual(meter.embeddings(), { calls: 2, failures: 0, texts: 3 });
  });
});

describe("metered: failed calls that were billed", () => {
  it("adds the usage a refused answer reported to the purpose's and the total's usage", async () => {
    const billed = { llmCalls: 1, inputTokens: 12_559, outputTokens: 0, costUsd: 0.0188 };
    const inner = new ScriptedModel([new ModelOutputError("prompt blocked", { usage: billed }), "ok"]);
    const meter = metered(inner);
    await assert.rejects(meter.model.generate(ask("planner")), ModelOutputError);
    assert.equal(meter.totals().failures, 1);
    assert.deepEqual(meter.totals().usage, billed);
    assert.deepEqual(meter.byRole().planner?.usage, billed);
    // An outage reports nothing billed and adds nothing.
    const down = metered(new ScriptedModel([new ModelUnavailableError("503")]));
    await assert.rejects(down.model.generate(ask("planner")), ModelUnavailableError);
    assert.deepEqual(down.totals().usage, { llmCalls: 0, inputTokens: 0, outputTokens: 0 });
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DeadlineExceededError } from "../../../functions/src/domain/errors.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

const aborted = () => {
  const controller = new AbortController();
  const reason = new DeadlineExceededError("step deadline passed");
  controller.abort(reason);
  return { signal: controller.signal, reason };
};

const request = (signal: AbortSignal): GenerateRequest => ({
  brief: someBrief("executor"),
  system: "s",
  messages: [{ role: "user", text: "u" }],
  signal,
});

describe("models without HTTP honour the abort signal like an HTTP call would", () => {
  it("the offline model answers nothing on an aborted signal", async () => {
    const { signal, reason } = aborted();
    await assert.rejects(createOfflineModel().generate(request(signal)), (error) => error === reason);
    await assert.rejects(
      createOfflineModel().embed({ texts: ["x"], task: "RETRIEVAL_QUERY", signal }),
      (error) => error === reason,
    );
  });

  it("the scripted model neither records nor answers a request on an aborted signal", async () => {
    const { signal, reason } = aborted();
    const model = new ScriptedModel(["answer"]);
    await assert.rejects(model.generate(request(signal)), (error) => error === reason);
    assert.equal(model.calls.length, 0);
    assert.equal(model.remaining(), 1, "the script step is still there for the next live request");
  });

  it("the scripted model's simulated latency ends when the signal fires", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel(["answer"], { latencyMs: 10_000 });
    setTimeout(() => controller.abort(new DeadlineExceededError("deadline")), 30);
    const started = performance.now();
    await assert.rejects(model.generate(request(controller.signal)), DeadlineExceededError);
    assert.ok(performance.now() - started < 5_000);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ConflictError,
  ModelOutputError,
  ModelUnavailableError,
  TokenLimitError,
} from "../../../functions/src/domain/errors.js";
import { ProviderUnavailableError } from "../../../functions/src/model/errors.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { backoffDelay, type RetryInfo, withRetry } from "../../../functions/src/model/retry.js";
import { ScriptedModel } from "../../../functions/src/model/scripted.js";

const request: GenerateRequest = {
  purpose: "executor",
  system: "s",
  messages: [{ role: "user", text: "go" }],
};

function harness(randoms: number[]) {
  const slept: number[] = [];
  const retries: RetryInfo[] = [];
  let i = 0;
  return {
    slept,
    retries,
    options: {
      baseDelayMs: 100,
      maxDelayMs: 1_000,
      sleep: async (ms: number) => {
        slept.push(ms);
      },
      random: () => randoms[i++ % randoms.length]!,
      onRetry: (info: RetryInfo) => retries.push(info),
    },
  };
}

describe("withRetry", () => {
  it("retries unavailable errors with full-jitter exponential backoff", async () => {
    const inner = new ScriptedModel([
      new ModelUnavailableError("429"),
      new ModelUnavailableError("503"),
      new ModelUnavailableError("network"),
      "finally",
    ]);
    const { slept, retries, options } = harness([0.5, 0.25, 0.999]);
    const model = withRetry(inner, options);
    const response = await model.generate(request);

    assert.equal(response.text, "finally");
    assert.equal(inner.calls.length, 4);
    // caps 100, 200, 400 → random × cap, floored
    assert.deepEqual(slept, [50, 50, 399]);
    assert.deepEqual(
      retries.map((r) => [r.attempt, r.delayMs, r.operation]),
      [
        [1, 50, "generate"],
        [2, 50, "generate"],
        [3, 399, "generate"],
      ],
    );
    assert.equal(model.name, "scripted");
  });

  it("gives up after maxAttempts (default 4) and rethrows the last error", async () => {
    const last = new ModelUnavailableError("still down");
    const inner = new ScriptedModel([
      new ModelUnavailableError("1"),
      new ModelUnavailableError("2"),
      new ModelUnavailableError("3"),
      last,
      "never reached",
    ]);
    const { slept, options } = harness([1 - Number.EPSILON]);
    await assert.rejects(withRetry(inner, options).generate(request), (error) => error === last);
    assert.equal(inner.calls.length, 4);
    assert.deepEqual(slept, [99, 199, 399]);
  });

  it("never retries token-limit or output errors, nor plain errors", async () => {
    for (const error of [
      new TokenLimitError("too long", 10, 5),
      new ModelOutputError("bad"),
      new Error("bug"),
    ]) {
      const inner = new ScriptedModel([error, "unused"]);
      const { slept, options } = harness([0.5]);
      await assert.rejects(withRetry(inner, options).generate(request), (thrown) => thrown === error);
      assert.equal(inner.calls.length, 1);
      assert.deepEqual(slept, []);
    }
  });

  it("retries other retryable FerretErrors too", async () => {
    const inner = new ScriptedModel([new ConflictError("contention"), "ok"]);
    const { options } = harness([0]);
    assert.equal((await withRetry(inner, options).generate(request)).text, "ok");
  });

  it("uses the provider's RetryInfo as a floor, capped by maxDelayMs", async () => {
    const inner = new ScriptedModel([
      new ProviderUnavailableError("429", { httpStatus: 429, retryAfterMs: 700 }),
      new ProviderUnavailableError("429", { httpStatus: 429, retryAfterMs: 60_000 }),
      "ok",
    ]);
    const { slept, options } = harness([0.1]);
    await withRetry(inner, options).generate(request);
    assert.deepEqual(slept, [700, 1_000]);
  });

  it("retries embed calls the same way", async () => {
    let calls = 0;
    const inner = new ScriptedModel([], {
      embed: () => {
        calls += 1;
        if (calls === 1) throw new ModelUnavailableError("503");
        return [[1]];
      },
    });
    const { slept, retries, options } = harness([0.5]);
    assert.deepEqual(await withRetry(inner, options).embed({ texts: ["a"], task: "RETRIEVAL_QUERY" }), [[1]]);
    assert.deepEqual(slept, [50]);
    assert.equal(retries[0]!.operation, "embed");
  });
});

describe("backoffDelay", () => {
  const base = { baseDelayMs: 1_000, maxDelayMs: 20_000, jitter: "none" as const, random: () => 0.5 };

  it("doubles per retry up to the cap without jitter", () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(n, base)),
      [1_000, 2_000, 4_000, 8_000, 16_000, 20_000, 20_000],
    );
  });

  it("scales the cap by random with full jitter", () => {
    assert.equal(backoffDelay(3, { ...base, jitter: "full" }), 2_000);
    assert.equal(backoffDelay(3, { ...base, jitter: "full", random: () => 0 }), 0);
  });
});

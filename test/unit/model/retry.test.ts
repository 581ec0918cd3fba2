import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  ConflictError,
  ModelOutputError,
  ModelUnavailableError,
  TokenLimitError,
} from "../../../functions/src/domain/errors.js";
import { ModelGlitchError, ProviderUnavailableError } from "../../../functions/src/model/errors.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { backoffDelay, nudgeText, type RetryInfo, withRetry } from "../../../functions/src/model/retry.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

const request: GenerateRequest = {
  brief: someBrief("executor"),
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

  it("waits the provider's RetryInfo delay (beyond maxDelayMs) when it is within maxRetryAfterMs", async () => {
    const inner = new ScriptedModel([
      new ProviderUnavailableError("429", { httpStatus: 429, retryAfterMs: 700 }),
      // Gemini's typical per-minute answer: "retryDelay": "37s".
      new ProviderUnavailableError("429", { httpStatus: 429, retryAfterMs: 37_000 }),
      "ok",
    ]);
    const { slept, options } = harness([0.1]);
    await withRetry(inner, { ...options, maxRetryAfterMs: 60_000 }).generate(request);
    assert.deepEqual(slept, [700, 37_000]);
  });

  it("does not wait for a RetryInfo delay beyond maxRetryAfterMs: the error goes up at once", async () => {
    const late = new ProviderUnavailableError("429", { httpStatus: 429, retryAfterMs: 90_000 });
    const inner = new ScriptedModel([late, "unused"]);
    const { slept, options } = harness([0.1]);
    await assert.rejects(
      withRetry(inner, { ...options, maxRetryAfterMs: 60_000 }).generate(request),
      (error) => error === late,
    );
    assert.deepEqual(slept, []);
    assert.equal(inner.calls.length, 1);
  });

  it("never retries a spent daily quota or a retired model, though both are ModelUnavailableError", async () => {
    for (const final of ["daily_quota", "model_not_found"] as const) {
      const error = new ProviderUnavailableError(final, { httpStatus: 429, retryAfterMs: 10, final });
      assert.ok(error instanceof ModelUnavailableError);
      const inner = new ScriptedModel([error, "unused"]);
      const { slept, options } = harness([0.5]);
      await assert.rejects(withRetry(inner, options).generate(request), (thrown) => thrown === error);
      assert.equal(inner.calls.length, 1);
      assert.deepEqual(slept, []);
    }
  });

  it("stops waiting when the step's signal aborts, with the provider's error", async () => {
    const busy = new ModelUnavailableError("503");
    const inner = new ScriptedModel([busy, "unused"]);
    const controller = new AbortController();
    const model = withRetry(inner, {
      sleep: () => {
        controller.abort();
        return new Promise(() => {});
      },
    });
    await assert.rejects(model.generate({ ...request, signal: controller.signal }), (e) => e === busy);
    assert.equal(inner.calls.length, 1);
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

describe("withRetry: glitches of the answer", () => {
  const billed = { llmCalls: 1, inputTokens: 900, outputTokens: 40, thinkingTokens: 30 };
  const glitches = [
    new ModelGlitchError("MALFORMED_FUNCTION_CALL", "malformed_function_call", { usage: billed }),
    new ModelGlitchError("empty", "empty_answer", { usage: billed }),
    new ModelGlitchError("OTHER", "other", { usage: billed }),
  ];

  for (const glitch of glitches) {
    it(`asks once more with a nudge after ${glitch.glitch}, counting both calls' tokens`, async () => {
      const inner = new ScriptedModel([glitch, "second time right"]);
      const { slept, retries, options } = harness([0.5]);
      const response = await withRetry(inner, options).generate(request);

      assert.equal(response.text, "second time right");
      assert.equal(inner.calls.length, 2);
      assert.deepEqual(slept, [], "a glitch is not a rate limit: no wait");
      const nudge = inner.calls[1]!.request.messages.at(-1);
      assert.deepEqual(nudge, { role: "user", text: nudgeText(glitch) });
      assert.deepEqual(inner.calls[1]!.request.messages.slice(0, -1), request.messages);
      assert.equal(retries[0]?.nudged, true);
      assert.equal(response.usage.llmCalls, 2);
      assert.equal(response.usage.inputTokens, 900 + inner.calls[1]!.response!.usage.inputTokens);
      assert.equal(response.usage.thinkingTokens, 30);
    });
  }

  it("nudges only once: a second glitch goes up carrying both calls' usage", async () => {
    const second = new ModelGlitchError("empty again", "empty_answer", { usage: billed });
    const inner = new ScriptedModel([glitches[0]!, second, "never"]);
    const { options } = harness([0.5]);
    await assert.rejects(withRetry(inner, options).generate(request), (error) => error === second);
    assert.equal(inner.calls.length, 2);
    assert.deepEqual(second.details?.usage, {
      llmCalls: 2,
      inputTokens: 1_800,
      outputTokens: 80,
      thinkingTokens: 60,
    });
  });

  it("does not nudge after a final refusal (safety, MAX_TOKENS): it is a plain ModelOutputError", async () => {
    const refused = new ModelOutputError("stopped with finish reason SAFETY", { finishReason: "SAFETY" });
    const inner = new ScriptedModel([refused, "unused"]);
    await assert.rejects(withRetry(inner).generate(request), (error) => error === refused);
    assert.equal(inner.calls.length, 1);
  });
});

describe("withRetry within a step's deadline (issue 36.3)", () => {
  const sharedQuota = () =>
    new ProviderUnavailableError("Gemini 429 RESOURCE_EXHAUSTED", { httpStatus: 429 });

  /** A clock that only moves when the retry sleeps. */
  function clocked(start = 1_000_000) {
    let t = start;
    const slept: number[] = [];
    return {
      slept,
      now: () => t,
      sleep: async (ms: number) => {
        slept.push(ms);
        t += ms;
      },
    };
  }

  it("waits out a burst of shared-quota 429s without RetryInfo past maxAttempts while the deadline leaves room", async () => {
    const burst = Array.from({ length: 6 }, sharedQuota);
    const inner = new ScriptedModel([...burst, "served"]);
    const clock = clocked();
    const model = withRetry(inner, { jitter: "none", now: clock.now, sleep: clock.sleep, maxAttempts: 4 });
    const response = await model.generate({ ...request, deadlineAt: clock.now() + 15 * 60_000 });
    assert.equal(response.text, "served");
    assert.equal(inner.calls.length, 7);
    // Shared quota starts from a 2 s cap and doubles up to maxDelayMs.
    assert.deepEqual(clock.slept, [2_000, 4_000, 8_000, 16_000, 20_000, 20_000]);
  });

  it("never waits past the deadline less the attempt's reserve, and gives up with the provider's error when nothing fits", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 120_000 }),
        fc.integer({ min: 1, max: 20 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        async (deadlineMs, failures, random) => {
          const errors = Array.from({ length: failures }, sharedQuota);
          const inner = new ScriptedModel([...errors, "served"]);
          const clock = clocked();
          const start = clock.now();
          const model = withRetry(inner, { now: clock.now, sleep: clock.sleep, random: () => random });
          const outcome = await model
            .generate({ ...request, deadlineAt: start + deadlineMs })
            .then((r) => r.text)
            .catch((error: unknown) => error);
          const waited = clock.slept.reduce((a, b) => a + b, 0);
          assert.ok(waited <= Math.max(0, deadlineMs - 10_000), `waited ${waited} of ${deadlineMs}`);
          if (outcome !== "served") assert.equal(outcome, errors[inner.calls.length - 1]);
        },
      ),
      { seed: 363, numRuns: 200 },
    );
  });

  it("does not wait for a RetryInfo delay that the remaining deadline cannot hold", async () => {
    const inner = new ScriptedModel([
      new ProviderUnavailableError("429 per minute", { httpStatus: 429, retryAfterMs: 45_000 }),
      "never reached",
    ]);
    const clock = clocked();
    await assert.rejects(
      withRetry(inner, { now: clock.now, sleep: clock.sleep }).generate({
        ...request,
        deadlineAt: clock.now() + 50_000,
      }),
      /429 per minute/,
    );
    assert.deepEqual(clock.slept, []);
  });
});

describe("withRetry: an outage within a deadline keeps the attempt count", () => {
  it("a 503 is retried maxAttempts times even when the deadline would allow more", async () => {
    const down = () => new ProviderUnavailableError("Gemini 503 UNAVAILABLE", { httpStatus: 503 });
    const inner = new ScriptedModel([down(), down(), down(), down(), "never reached"]);
    let t = 0;
    const model = withRetry(inner, {
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
    });
    await assert.rejects(model.generate({ ...request, deadlineAt: 15 * 60_000 }), /503/);
    assert.equal(inner.calls.length, 4);
  });
});

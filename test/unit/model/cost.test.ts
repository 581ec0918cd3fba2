import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_PRICES } from "../../../functions/src/config/model-settings.js";
import { addUsage } from "../../../functions/src/domain/results.js";
import { describeUsage, estimateCostUsd, formatUsd, priceOf } from "../../../functions/src/model/cost.js";
import { lifecycleWarning } from "../../../functions/src/model/lifecycle.js";

const flash = DEFAULT_PRICES["gemini-3.5-flash"];

describe("estimateCostUsd", () => {
  it("bills fresh input, cached input and output (thinking included) at their own rates", () => {
    const usage = { llmCalls: 1, inputTokens: 10_000, cachedInputTokens: 4_000, outputTokens: 1_000 };
    // 6,000 fresh × 1.50 + 4,000 cached × 0.15 + 1,000 out × 9.00, per million
    assert.equal(estimateCostUsd(usage, flash), (6_000 * 1.5 + 4_000 * 0.15 + 1_000 * 9) / 1e6);
  });

  it("has no estimate without a price, rather than a made-up zero", () => {
    assert.equal(estimateCostUsd({ llmCalls: 1, inputTokens: 5, outputTokens: 5 }, undefined), undefined);
  });

  it("finds the price of a dated or prefixed id", () => {
    assert.deepEqual(priceOf(DEFAULT_PRICES, "models/gemini-3.5-flash"), flash);
    assert.deepEqual(priceOf(DEFAULT_PRICES, "gemini-3.5-flash-001"), flash);
    assert.equal(priceOf(DEFAULT_PRICES, "gemini-9-ultra"), undefined);
  });
});

describe("usage sums and the per-investigation line", () => {
  it("adds cached, thinking and cost only where some call reported them", () => {
    const plain = { llmCalls: 1, inputTokens: 100, outputTokens: 10 };
    assert.deepEqual(addUsage(plain, plain), { llmCalls: 2, inputTokens: 200, outputTokens: 20 });
    assert.deepEqual(addUsage(plain, { ...plain, cachedInputTokens: 40, thinkingTokens: 5, costUsd: 0.5 }), {
      llmCalls: 2,
      inputTokens: 200,
      outputTokens: 20,
      cachedInputTokens: 40,
      thinkingTokens: 5,
      costUsd: 0.5,
    });
  });

  it("prints tokens in, cached, out, thinking and the estimate", () => {
    assert.equal(
      describeUsage({
        llmCalls: 14,
        inputTokens: 52_310,
        cachedInputTokens: 12_288,
        outputTokens: 3_904,
        thinkingTokens: 1_210,
        costUsd: 0.114,
      }),
      "14 model calls · 52,310 tokens in (12,288 cached) · 3,904 out (1,210 thinking) · ≈ $0.1140",
    );
    assert.equal(
      describeUsage({ llmCalls: 3, inputTokens: 9, outputTokens: 2 }),
      "3 model calls · 9 tokens in · 2 out",
    );
    assert.equal(formatUsd(12.345), "$12.35");
  });

  it("says an offline playbook run used no LLM, no tokens and no cost (issue 29)", () => {
    const usage = { llmCalls: 3, inputTokens: 0, outputTokens: 0 };
    assert.equal(
      describeUsage(usage, { offline: true }),
      "3 offline playbook calls · no LLM, no tokens, no cost",
    );
    // A run that fell back part-way reports the LLM's tokens as counted.
    assert.equal(
      describeUsage({ llmCalls: 5, inputTokens: 900, outputTokens: 100 }, { offline: true }),
      "5 model calls · 900 tokens in · 100 out",
    );
  });
});

describe("lifecycleWarning", () => {
  it("says a retired model answers 404 and names the replacement", () => {
    const warning = lifecycleWarning("gemini-2.5-flash", new Date("2026-11-25T00:00:00Z"));
    assert.match(warning ?? "", /gemini-2\.5-flash was shut down on 2026-10-16 .*gemini-3\.8-flash/);
  });

  it("warns within 60 days of a shutdown and stays quiet before and for unknown ids", () => {
    assert.match(
      lifecycleWarning("gemini-3.1-flash-lite", new Date("2027-04-01T00:00:00Z")) ?? "",
      /in 36 days/,
    );
    assert.equal(lifecycleWarning("gemini-3.1-flash-lite", new Date("2026-11-25T00:00:00Z")), undefined);
    assert.equal(lifecycleWarning("gemini-3.8-flash", new Date("2026-11-25T00:00:00Z")), undefined);
  });
});

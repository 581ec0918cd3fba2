import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkTargets, type Measured, TARGET_RATIO, totalsOf, verdictsAgree, vsBaseline } from "./summary.js";

// Run with: node --import tsx --test bench/agent/summary.test.ts

function run(config: Measured["config"], over: Partial<Measured> = {}): Measured {
  return {
    scenario: "s",
    config,
    status: "concluded",
    verdict: "true_positive",
    correct: true,
    llmCalls: 10,
    inputTokens: 900,
    outputTokens: 100,
    estimatedUsd: 0.01,
    wallMs: 1_000,
    decisive: { queried: 1, of: 1, missing: [] },
    ...over,
  };
}

describe("section 1 totals and ratios against the baseline", () => {
  it("sums every column metric over the scenarios", () => {
    const t = totalsOf([run("ferret"), run("ferret", { llmCalls: 5, inputTokens: 400, wallMs: 250 })]);
    assert.deepEqual(t, {
      llmCalls: 15,
      inputTokens: 1_300,
      outputTokens: 200,
      estimatedUsd: 0.02,
      wallMs: 1_250,
    });
  });

  it("divides the column by the baseline (below 1 is fewer), tokens as input plus output", () => {
    const baseline = totalsOf([
      run("baseline", { llmCalls: 20, inputTokens: 1_800, outputTokens: 200, wallMs: 4_000 }),
    ]);
    const ferret = totalsOf([
      run("ferret", { llmCalls: 10, inputTokens: 500, outputTokens: 100, wallMs: 1_000 }),
    ]);
    assert.deepEqual(vsBaseline(ferret, baseline), { llmCalls: 0.5, tokens: 0.3, wallMs: 0.25 });
  });

  it("gives no ratio (NaN) against an empty baseline rather than a division by zero", () => {
    const empty = totalsOf([]);
    assert.ok(Number.isNaN(vsBaseline(totalsOf([run("react")]), empty).llmCalls));
  });
});

describe("issue 18's targets", () => {
  it(`is met at or below ${TARGET_RATIO}× and not above`, () => {
    const checks = checkTargets({ llmCalls: 0.6, tokens: 0.61, wallMs: 0.2 });
    assert.deepEqual(
      checks.map((c) => [c.metric, c.met]),
      [
        ["llmCalls", true],
        ["tokens", false],
        ["wallMs", true],
      ],
    );
  });

  it("is not met when there is no ratio", () => {
    assert.equal(checkTargets({ llmCalls: Number.NaN, tokens: 0.1, wallMs: 0.1 })[0]?.met, false);
  });
});

describe("verdicts across columns", () => {
  it("agree only when every column reached the same verdict", () => {
    assert.equal(verdictsAgree([run("ferret"), run("baseline"), run("react")]), true);
    assert.equal(
      verdictsAgree([run("ferret"), run("baseline"), run("react", { verdict: "inconclusive" })]),
      false,
    );
    assert.equal(verdictsAgree([run("ferret"), run("baseline", { verdict: null, status: "failed" })]), false);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { usageBreakdown } from "../../../functions/src/console/usage-breakdown.js";
import { FIXED_CALLS_MODEL, type Usage } from "../../../functions/src/domain/results.js";

const u = (llmCalls: number, inputTokens = 0, outputTokens = 0): Usage => ({
  llmCalls,
  inputTokens,
  outputTokens,
});
const sum = (rows: { llmCalls: number; inputTokens: number; outputTokens: number }[]) =>
  rows.reduce(
    (s, r) => ({
      llmCalls: s.llmCalls + r.llmCalls,
      inputTokens: s.inputTokens + r.inputTokens,
      outputTokens: s.outputTokens + r.outputTokens,
    }),
    { llmCalls: 0, inputTokens: 0, outputTokens: 0 },
  );

describe("where the model calls went (issue 29: steps said 0, the total said 3)", () => {
  it("the demo's shape: planned-call steps, one reflection; the rows add up to the total", () => {
    const steps = ["intel-iocs", "host-logs", "egress-top", "dns-pool"].map((stepId) => ({
      stepId,
      model: FIXED_CALLS_MODEL,
      usage: u(0),
    }));
    const b = usageBreakdown(u(3), steps, [{ usage: u(1) }], { compressed: false });
    assert.deepEqual(
      b.rows.map((r) => [r.where, r.llmCalls]),
      [
        ["step intel-iocs", 0],
        ["step host-logs", 0],
        ["step egress-top", 0],
        ["step dns-pool", 0],
        ["reflections (1)", 1],
        ["plan and conclusion", 2],
      ],
    );
    assert.deepEqual(sum(b.rows), { llmCalls: 3, inputTokens: 0, outputTokens: 0 });
    assert.equal(b.total.llmCalls, 3);
    assert.equal(b.inconsistent, false);
    assert.match(b.rows[0]?.note ?? "", /no model call: the plan named the tool calls/);
  });

  it("an LLM run: steps, reflections and the rest add up in calls and tokens; compression is named", () => {
    const b = usageBreakdown(
      { llmCalls: 9, inputTokens: 9_000, outputTokens: 900, costUsd: 0.02 },
      [{ stepId: "s1", model: "gemini-2.5-flash", usage: { ...u(4, 5_000, 400), costUsd: 0.01 } }],
      [{ usage: u(2, 1_000, 100) }, { usage: u(1, 500, 50) }],
      { compressed: true },
    );
    assert.deepEqual(sum(b.rows), { llmCalls: 9, inputTokens: 9_000, outputTokens: 900 });
    assert.equal(b.rows.at(-1)?.where, "plan, conclusion and compression");
    assert.equal(b.rows[0]?.note, "", "a step that called the model needs no note");
    assert.equal(b.total.cost, "$0.0200");
  });

  it("says so when the parts exceed the total instead of showing a negative remainder", () => {
    const b = usageBreakdown(u(1), [{ stepId: "s1", model: "m", usage: u(2) }], [], { compressed: false });
    assert.equal(b.inconsistent, true);
    assert.equal(b.rows.at(-1)?.llmCalls, 0);
  });
});

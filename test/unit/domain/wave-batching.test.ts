import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { decideNext, stepTokenAllowance, waveOf } from "../../../functions/src/domain/next-action.js";
import type { Step } from "../../../functions/src/domain/plan.js";
import { counters, plan, policy, step } from "../../fixtures/plans.js";

/**
 * Decision 0053: a step whose calls the plan fixed is a query, not a model turn, so it joins
 * the wave beside the steps that need the step executor; the width bounds those only. Under
 * the old rule (every step counted against the width) the plan's later questions waited for
 * a wave the reflector could cancel before they ran.
 */
const planned = (id: string): Step =>
  step(id, { calls: [{ tool: "log_query", args: { runbook: "host_syslog", params: { instance: id } } }] });

describe("waves: planned-call steps ride beside the model steps", () => {
  it("runs every ready planned step in the first wave, and at most the width of model steps", () => {
    const p = plan([step("m1"), planned("p1"), step("m2"), planned("p2"), step("m3"), planned("p3")]);
    const next = decideNext({
      plan: p,
      counters: counters(),
      policy: policy({ maxParallelSteps: 2 }),
      now: new Date("2025-01-01T00:00:00Z"),
      deadlineAt: new Date("2025-01-01T01:00:00Z"),
    });
    assert.deepEqual(next, { kind: "execute", stepIds: ["m1", "p1", "m2", "p2", "p3"] });
  });

  it("counts planned steps against the width when the executor model runs every step's calls", () => {
    const p = plan([planned("p1"), planned("p2"), planned("p3")]);
    const wave = waveOf(p.steps, policy({ maxParallelSteps: 2, plannedCalls: "executor" }));
    assert.deepEqual(
      wave.map((s) => s.id),
      ["p1", "p2"],
    );
  });

  it("keeps one step per wave when reflecting after every step", () => {
    const p = plan([planned("p1"), planned("p2")]);
    assert.deepEqual(
      waveOf(p.steps, policy({ reflection: "every_step" })).map((s) => s.id),
      ["p1"],
    );
  });

  it("shares the token budget among the whole wave, planned steps included", () => {
    const p = plan([step("m1"), planned("p1"), planned("p2"), planned("p3")]);
    const used = counters({ usage: { llmCalls: 0, inputTokens: 20_000, outputTokens: 0 } });
    assert.equal(stepTokenAllowance(policy({ tokenBudget: 100_000, maxParallelSteps: 1 }), used, p), 20_000);
  });

  it("property: a wave is the ready steps in plan order, every planned one and at most the width of the others", () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 16 }),
        (kinds, width) => {
          const steps = kinds.map((isPlanned, i) => (isPlanned ? planned(`s${i}`) : step(`s${i}`)));
          const wave = waveOf(steps, policy({ maxParallelSteps: width }));
          const ids = wave.map((s) => s.id);
          assert.deepEqual(
            ids,
            steps.filter((s) => ids.includes(s.id)).map((s) => s.id),
          );
          const model = wave.filter((s) => !s.calls);
          assert.equal(model.length, Math.min(width, kinds.filter((k) => !k).length));
          assert.equal(wave.length - model.length, kinds.filter((k) => k).length);
        },
      ),
    );
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type DecisionInput,
  decideNext,
  readySteps,
  stepTokenAllowance,
} from "../../../functions/src/domain/next-action.js";
import { counters, plan, policy, step } from "../../fixtures/plans.js";

const NOW = new Date("2024-05-14T10:00:00.000Z");
const LATER = new Date("2024-05-14T10:30:00.000Z");

function input(overrides: Partial<DecisionInput> = {}): DecisionInput {
  return {
    plan: plan([step("a")]),
    counters: counters(),
    policy: policy(),
    now: NOW,
    deadlineAt: LATER,
    ...overrides,
  };
}

describe("readySteps", () => {
  it("returns pending steps whose dependencies are all done, in plan order", () => {
    const p = plan([
      step("a", { status: "done" }),
      step("b", { dependsOn: ["a"] }),
      step("c", { dependsOn: ["a", "d"] }),
      step("d"),
      step("e", { status: "failed" }),
      step("f", { status: "cancelled" }),
    ]);
    assert.deepEqual(
      readySteps(p).map((s) => s.id),
      ["b", "d"],
    );
  });

  it("runs an interrupted (running) step again, but not a step that depends on it", () => {
    const p = plan([step("a", { status: "running" }), step("b", { dependsOn: ["a"] })]);
    assert.deepEqual(
      readySteps(p).map((s) => s.id),
      ["a"],
    );
  });
});

describe("decideNext: execution waves", () => {
  it("executes the ready steps, respecting dependsOn", () => {
    const p = plan([step("a"), step("b", { dependsOn: ["a"] }), step("c")]);
    assert.deepEqual(decideNext(input({ plan: p })), { kind: "execute", stepIds: ["a", "c"] });
  });

  it("caps a wave at maxParallelSteps", () => {
    const p = plan(["s1", "s2", "s3", "s4", "s5"].map((id) => step(id)));
    assert.deepEqual(decideNext(input({ plan: p, policy: policy({ maxParallelSteps: 2 }) })), {
      kind: "execute",
      stepIds: ["s1", "s2"],
    });
    assert.deepEqual(decideNext(input({ plan: p, policy: policy({ maxParallelSteps: 16 }) })), {
      kind: "execute",
      stepIds: ["s1", "s2", "s3", "s4", "s5"],
    });
  });

  it("runs one step per wave when reflection is every_step", () => {
    const p = plan([step("a"), step("b"), step("c")]);
    assert.deepEqual(
      decideNext(input({ plan: p, policy: policy({ reflection: "every_step", maxParallelSteps: 4 }) })),
      {
        kind: "execute",
        stepIds: ["a"],
      },
    );
  });

  it("unblocks a dependent step once its dependency is done", () => {
    const p = plan([step("a", { status: "done" }), step("b", { dependsOn: ["a"] })]);
    assert.deepEqual(decideNext(input({ plan: p })), { kind: "execute", stepIds: ["b"] });
  });
});

describe("decideNext: reflection cadence", () => {
  const afterWave = plan([step("a", { status: "done" }), step("b", { status: "failed" }), step("c")]);

  it("reflects after every wave (every_wave), naming the wave's steps", () => {
    const decision = decideNext(
      input({
        plan: afterWave,
        policy: policy({ reflection: "every_wave" }),
        finishedWave: { stepIds: ["a", "b"], anyFailed: false },
      }),
    );
    assert.deepEqual(decision, { kind: "reflect", stepIds: ["a", "b"] });
  });

  it("reflects after each step (every_step)", () => {
    const decision = decideNext(
      input({
        plan: afterWave,
        policy: policy({ reflection: "every_step" }),
        finishedWave: { stepIds: ["a"], anyFailed: false },
      }),
    );
    assert.deepEqual(decision, { kind: "reflect", stepIds: ["a"] });
  });

  it("on_error: skips reflection when nothing failed and goes on with the next wave", () => {
    const decision = decideNext(
      input({
        plan: afterWave,
        policy: policy({ reflection: "on_error" }),
        finishedWave: { stepIds: ["a"], anyFailed: false },
      }),
    );
    assert.deepEqual(decision, { kind: "execute", stepIds: ["c"] });
  });

  it("on_error: reflects when a step of the wave failed", () => {
    const decision = decideNext(
      input({
        plan: afterWave,
        policy: policy({ reflection: "on_error" }),
        finishedWave: { stepIds: ["a", "b"], anyFailed: true },
      }),
    );
    assert.deepEqual(decision, { kind: "reflect", stepIds: ["a", "b"] });
  });

  it("does not reflect on an empty wave", () => {
    const decision = decideNext(input({ plan: afterWave, finishedWave: { stepIds: [], anyFailed: false } }));
    assert.deepEqual(decision, { kind: "execute", stepIds: ["c"] });
  });

  it("returns a copy of the wave's ids, not the caller's array", () => {
    const ids = ["a"];
    const decision = decideNext(input({ plan: afterWave, finishedWave: { stepIds: ids, anyFailed: false } }));
    assert.equal(decision.kind, "reflect");
    assert.notEqual(decision.kind === "reflect" ? decision.stepIds : undefined, ids);
  });
});

describe("decideNext: folding the last reflection into the conclusion (decision 0026)", () => {
  const allDone = plan([step("a", { status: "done" }), step("b", { status: "done" })]);
  const wave = { stepIds: ["a", "b"], anyFailed: false };

  for (const reflection of ["every_wave", "every_step"] as const) {
    it(`${reflection}: concludes without a reflection when nothing is left to run and every step answered`, () => {
      const decision = decideNext(
        input({
          plan: allDone,
          policy: policy({ reflection }),
          finishedWave: { ...wave, allAnswered: true },
        }),
      );
      assert.equal(decision.kind, "conclude");
    });
  }

  it("reflects when a step of the wave came back empty or failed: the reflector may add a follow-up", () => {
    const decision = decideNext(input({ plan: allDone, finishedWave: { ...wave, allAnswered: false } }));
    assert.deepEqual(decision, { kind: "reflect", stepIds: ["a", "b"] });
  });

  it("reflects when a step is still pending: the reflection may cancel or change it", () => {
    const p = plan([step("a", { status: "done" }), step("b", { status: "done" }), step("c")]);
    const decision = decideNext(input({ plan: p, finishedWave: { ...wave, allAnswered: true } }));
    assert.deepEqual(decision, { kind: "reflect", stepIds: ["a", "b"] });
  });

  it("reflects when agent.foldLastReflection is false", () => {
    const decision = decideNext(
      input({
        plan: allDone,
        policy: policy({ foldLastReflection: false }),
        finishedWave: { ...wave, allAnswered: true },
      }),
    );
    assert.deepEqual(decision, { kind: "reflect", stepIds: ["a", "b"] });
  });

  it("reflects when the caller does not say whether the wave answered", () => {
    const decision = decideNext(input({ plan: allDone, finishedWave: wave }));
    assert.deepEqual(decision, { kind: "reflect", stepIds: ["a", "b"] });
  });
});

describe("decideNext: stopping", () => {
  it("concludes when the reflector judged the objective achieved, even with steps left", () => {
    const p = plan([step("a", { status: "done" }), step("b"), step("c")]);
    const decision = decideNext(input({ plan: p, lastReflection: { achieved: true, refusedForBudget: 0 } }));
    assert.equal(decision.kind, "conclude");
    assert.match(decision.kind === "conclude" ? decision.reason : "", /achieved/);
  });

  it("needs a human when the deadline has passed, saying so", () => {
    const p = plan([step("a")]);
    const atDeadline = decideNext(input({ plan: p, now: LATER, deadlineAt: LATER }));
    assert.deepEqual(atDeadline, {
      kind: "needs_human",
      reason: "the investigation deadline of 1800s passed",
    });
    const justBefore = decideNext(input({ plan: p, now: new Date(LATER.getTime() - 1), deadlineAt: LATER }));
    assert.deepEqual(justBefore, { kind: "execute", stepIds: ["a"] });
  });

  it("needs a human when input plus output tokens reach the budget", () => {
    const p = plan([step("a")]);
    const spent = counters({ usage: { llmCalls: 12, inputTokens: 9_000, outputTokens: 1_000 } });
    assert.deepEqual(
      decideNext(input({ plan: p, counters: spent, policy: policy({ tokenBudget: 10_000 }) })),
      {
        kind: "needs_human",
        reason: "the token budget is used up (10000 of 10000)",
      },
    );
    assert.deepEqual(
      decideNext(input({ plan: p, counters: spent, policy: policy({ tokenBudget: 10_001 }) })),
      {
        kind: "execute",
        stepIds: ["a"],
      },
    );
  });

  it("needs a human after maxConsecutiveFailures failed steps in a row", () => {
    const p = plan([step("a", { status: "failed" }), step("b", { status: "failed" }), step("c")]);
    assert.deepEqual(
      decideNext(
        input({
          plan: p,
          counters: counters({ consecutiveFailures: 2 }),
          policy: policy({ maxConsecutiveFailures: 2 }),
        }),
      ),
      { kind: "needs_human", reason: "2 steps failed in a row" },
    );
    assert.deepEqual(
      decideNext(
        input({
          plan: p,
          counters: counters({ consecutiveFailures: 1 }),
          policy: policy({ maxConsecutiveFailures: 2 }),
        }),
      ),
      { kind: "execute", stepIds: ["c"] },
    );
  });

  it("checks budgets before reflecting on a finished wave", () => {
    const p = plan([step("a", { status: "done" }), step("b")]);
    const decision = decideNext(
      input({ plan: p, now: LATER, deadlineAt: LATER, finishedWave: { stepIds: ["a"], anyFailed: false } }),
    );
    assert.equal(decision.kind, "needs_human");
  });

  it("concludes when every step has finished (done, failed or cancelled)", () => {
    const p = plan([
      step("a", { status: "done" }),
      step("b", { status: "failed" }),
      step("c", { status: "cancelled", cancelReason: "not needed" }),
    ]);
    assert.deepEqual(decideNext(input({ plan: p })), { kind: "conclude", reason: "every step has finished" });
  });

  it("concludes, naming the blocked steps, when a dependency failed or was cancelled", () => {
    const p = plan([
      step("a", { status: "failed" }),
      step("b", { status: "cancelled", cancelReason: "pool already confirmed" }),
      step("c", { dependsOn: ["a"] }),
      step("d", { dependsOn: ["b"] }),
      step("e", { status: "done" }),
    ]);
    assert.deepEqual(decideNext(input({ plan: p })), {
      kind: "conclude",
      reason: "steps c, d cannot run because a step they depend on failed or was cancelled",
    });
  });

  it("needs a human when the reflector wanted more steps but the revision budget refused them", () => {
    const p = plan([step("a", { status: "done" }), step("b", { status: "done" })]);
    assert.deepEqual(
      decideNext(input({ plan: p, lastReflection: { achieved: false, refusedForBudget: 2 } })),
      {
        kind: "needs_human",
        reason: "the reflector wanted more steps but the revision budget is used up",
      },
    );
    // Without refusals the same plan simply concludes.
    assert.deepEqual(
      decideNext(input({ plan: p, lastReflection: { achieved: false, refusedForBudget: 0 } })),
      {
        kind: "conclude",
        reason: "every step has finished",
      },
    );
  });

  it("keeps executing despite budget refusals while steps are still ready", () => {
    const p = plan([step("a", { status: "done" }), step("b")]);
    assert.deepEqual(
      decideNext(input({ plan: p, lastReflection: { achieved: false, refusedForBudget: 1 } })),
      {
        kind: "execute",
        stepIds: ["b"],
      },
    );
  });
});

describe("stepTokenAllowance", () => {
  const used = (tokens: number) =>
    counters({ usage: { llmCalls: 3, inputTokens: tokens - 1_000, outputTokens: 1_000 } });
  const ready = (n: number) =>
    plan([
      step("done-one", { status: "done" }),
      ...Array.from({ length: n }, (_, i) => step(`s${i}`, { dependsOn: ["done-one"] })),
      step("later", { dependsOn: ["s0"] }),
    ]);

  it("shares what is left of the budget evenly among the steps of the wave", () => {
    const p = policy({ tokenBudget: 100_000, maxParallelSteps: 4 });
    assert.equal(stepTokenAllowance(p, used(20_000), ready(4)), 20_000);
    assert.equal(stepTokenAllowance(p, used(20_000), ready(2)), 40_000);
    // Six ready, but a wave runs four of them.
    assert.equal(stepTokenAllowance(p, used(20_000), ready(6)), 20_000);
  });

  it("gives the whole remainder to a step that runs alone", () => {
    assert.equal(stepTokenAllowance(policy({ tokenBudget: 100_000 }), used(20_000), ready(1)), 80_000);
    const oneAtATime = policy({ tokenBudget: 100_000, maxParallelSteps: 4, reflection: "every_step" });
    assert.equal(stepTokenAllowance(oneAtATime, used(20_000), ready(4)), 80_000);
  });

  it("is zero, never negative, once the budget is used up", () => {
    assert.equal(stepTokenAllowance(policy({ tokenBudget: 10_000 }), used(12_000), ready(2)), 0);
  });
});

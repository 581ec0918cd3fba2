import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PlanUpdate, StepDraft } from "../../../functions/src/domain/plan.js";
import { applyPlanUpdates, planFromDraft, planProblems } from "../../../functions/src/domain/plan-rules.js";
import { plan, step } from "../../fixtures/plans.js";

const TOOLS = ["intel_lookup", "log_query", "asset_inventory"];
const rules = { allowedTools: TOOLS, maxSteps: 5 };
const revRules = { ...rules, maxRevisions: 3 };

function draft(id: string, overrides: Partial<StepDraft> = {}): StepDraft {
  return {
    id,
    description: `check ${id}`,
    tools: ["intel_lookup"],
    expected: `evidence for ${id}`,
    dependsOn: [],
    ...overrides,
  };
}

describe("planProblems", () => {
  it("accepts a valid plan with forward and backward dependencies", () => {
    const steps = [
      draft("a", { dependsOn: ["b"] }),
      draft("b"),
      draft("c", { dependsOn: ["a", "b"], tools: ["log_query"] }),
    ];
    assert.deepEqual(planProblems(steps, rules), []);
  });

  it("names an unknown tool and lists the available ones", () => {
    const steps = [draft("a"), draft("b", { tools: ["log_query", "check_malware"] })];
    assert.deepEqual(planProblems(steps, rules), [
      'step "b" names unknown tool "check_malware"; available: intel_lookup, log_query, asset_inventory',
    ]);
  });

  it("reports a duplicate id", () => {
    assert.deepEqual(planProblems([draft("a"), draft("b"), draft("a")], rules), [
      'step id "a" is used twice',
    ]);
  });

  it("reports a dependency on a step that does not exist", () => {
    assert.deepEqual(planProblems([draft("a"), draft("b", { dependsOn: ["zz"] })], rules), [
      'step "b" depends on unknown step "zz"',
    ]);
  });

  it("reports a step that depends on itself", () => {
    const problems = planProblems([draft("a", { dependsOn: ["a"] })], rules);
    assert.ok(problems.includes('step "a" depends on itself'), problems.join(" | "));
  });

  it("reports a dependency cycle with its path", () => {
    const steps = [
      draft("a", { dependsOn: ["b"] }),
      draft("b", { dependsOn: ["c"] }),
      draft("c", { dependsOn: ["a"] }),
      draft("d"),
    ];
    assert.deepEqual(planProblems(steps, rules), ["steps form a dependency cycle: a -> b -> c -> a"]);
  });

  it("reports a plan over the step cap", () => {
    const steps = ["a", "b", "c", "d", "e", "f"].map((id) => draft(id));
    assert.deepEqual(planProblems(steps, rules), ["the plan has 6 steps; at most 5 are allowed"]);
    assert.deepEqual(planProblems(steps.slice(0, 5), rules), []);
  });

  it("reports every problem at once", () => {
    const steps = [draft("a", { tools: ["nope"] }), draft("a", { dependsOn: ["ghost"] })];
    const problems = planProblems(steps, { allowedTools: TOOLS, maxSteps: 1 });
    assert.equal(problems.length, 4, problems.join(" | "));
  });
});

describe("planFromDraft", () => {
  it("starts every step pending in revision 0", () => {
    const p = planFromDraft({
      objective: "o",
      successCriteria: ["c"],
      constraints: [],
      steps: [draft("a"), draft("b", { dependsOn: ["a"] })],
    });
    assert.equal(p.revision, 0);
    assert.deepEqual(
      p.steps.map((s) => [s.id, s.status, s.addedInRevision]),
      [
        ["a", "pending", 0],
        ["b", "pending", 0],
      ],
    );
  });
});

describe("applyPlanUpdates", () => {
  const base = () =>
    plan([
      step("a", { status: "done" }),
      step("b"),
      step("c", { dependsOn: ["a"] }),
      step("f", {
        status: "failed",
        description: "Look up 45.9.148.108 in threat intel",
        tools: ["intel_lookup", "log_query"],
      }),
    ]);

  it("applies add, update and cancel together and bumps the revision once", () => {
    const before = base();
    const snapshot = structuredClone(before);
    const updates: PlanUpdate[] = [
      { op: "add", step: draft("d", { tools: ["log_query"], dependsOn: ["a"] }) },
      {
        op: "update",
        id: "c",
        description: "query VPC flow logs for 45.9.148.108:3333",
        tools: ["log_query"],
      },
      { op: "cancel", id: "b", reason: "the pool IP is already confirmed" },
    ];
    const out = applyPlanUpdates(before, updates, revRules);

    assert.deepEqual(out.applied, updates);
    assert.deepEqual(out.refused, []);
    assert.equal(out.plan.revision, 1);
    assert.deepEqual(
      out.plan.steps.map((s) => [s.id, s.status]),
      [
        ["a", "done"],
        ["b", "cancelled"],
        ["c", "pending"],
        ["f", "failed"],
        ["d", "pending"],
      ],
    );
    const d = out.plan.steps.find((s) => s.id === "d")!;
    assert.equal(d.addedInRevision, 1);
    assert.deepEqual(d.dependsOn, ["a"]);
    const c = out.plan.steps.find((s) => s.id === "c")!;
    assert.equal(c.description, "query VPC flow logs for 45.9.148.108:3333");
    assert.deepEqual(c.tools, ["log_query"]);
    assert.equal(c.expected, "evidence for c", "fields the update does not name are kept");
    assert.equal(out.plan.steps.find((s) => s.id === "b")!.cancelReason, "the pool IP is already confirmed");
    assert.deepEqual(before, snapshot, "the input plan is not mutated");
  });

  it("counts revisions per reflection", () => {
    const roomy = { ...revRules, maxSteps: 10 };
    const first = applyPlanUpdates(base(), [{ op: "add", step: draft("d") }], roomy);
    const second = applyPlanUpdates(first.plan, [{ op: "add", step: draft("e") }], roomy);
    assert.equal(second.plan.revision, 2);
    assert.equal(second.plan.steps.find((s) => s.id === "e")!.addedInRevision, 2);
  });

  it("keeps cancelled steps and refuses to re-add one under the same id", () => {
    const cancelled = applyPlanUpdates(
      base(),
      [{ op: "cancel", id: "b", reason: "not useful" }],
      revRules,
    ).plan;
    const out = applyPlanUpdates(
      cancelled,
      [{ op: "add", step: draft("b", { description: "a different idea" }) }],
      revRules,
    );

    assert.deepEqual(out.applied, []);
    assert.equal(out.refused.length, 1);
    assert.match(out.refused[0]!.reason, /^step "b" was cancelled earlier and stays cancelled/);
    assert.equal(out.plan, cancelled, "a fully refused reflection returns the plan unchanged");
    assert.equal(out.plan.revision, 1);
    assert.equal(out.plan.steps.find((s) => s.id === "b")!.status, "cancelled");
  });

  it("refuses to add a step that exists and is not cancelled", () => {
    const out = applyPlanUpdates(base(), [{ op: "add", step: draft("a") }], revRules);
    assert.deepEqual(
      out.refused.map((r) => r.reason),
      ['step "a" already exists'],
    );
  });

  it("refuses a new step that repeats a failed step's approach", () => {
    const twin = draft("f2", {
      description: "  look up 45.9.148.108   in THREAT intel ",
      tools: ["log_query", "intel_lookup"],
    });
    const out = applyPlanUpdates(base(), [{ op: "add", step: twin }], revRules);
    assert.deepEqual(
      out.refused.map((r) => r.reason),
      ['same approach as failed step "f"; change tools or parameters instead of repeating it'],
    );
    assert.equal(out.plan.revision, 0);

    const changed = applyPlanUpdates(
      base(),
      [{ op: "add", step: { ...twin, tools: ["asset_inventory"] } }],
      revRules,
    );
    assert.equal(changed.applied.length, 1, "a different tool set is a different approach");
  });

  it("refuses an update that turns a pending step into a failed step's approach", () => {
    const out = applyPlanUpdates(
      base(),
      [
        {
          op: "update",
          id: "b",
          description: "Look up 45.9.148.108 in threat intel",
          tools: ["intel_lookup", "log_query"],
        },
      ],
      revRules,
    );
    assert.deepEqual(
      out.refused.map((r) => r.reason),
      ['same approach as failed step "f"; change tools or parameters instead of repeating it'],
    );
    assert.equal(out.plan.steps.find((s) => s.id === "b")!.description, "check b");
  });

  it("cancels a running step (it stops before its next model round) but refuses to update it", () => {
    const p = plan([step("x", { status: "running" }), step("y")]);
    const out = applyPlanUpdates(
      p,
      [
        { op: "update", id: "x", expected: "something else" },
        { op: "cancel", id: "x", reason: "moot" },
      ],
      revRules,
    );
    assert.deepEqual(
      out.refused.map((r) => r.reason),
      ['step "x" is running; only pending steps can change'],
    );
    assert.deepEqual(
      out.plan.steps.map((s) => [s.id, s.status, s.cancelReason]),
      [
        ["x", "cancelled", "moot"],
        ["y", "pending", undefined],
      ],
    );
  });

  for (const status of ["done", "failed", "cancelled"] as const) {
    it(`refuses to update or cancel a ${status} step`, () => {
      const p = plan([step("x", { status }), step("y")]);
      const out = applyPlanUpdates(
        p,
        [
          { op: "update", id: "x", expected: "something else" },
          { op: "cancel", id: "x", reason: "no longer needed" },
        ],
        revRules,
      );
      assert.deepEqual(
        out.refused.map((r) => r.reason),
        [
          `step "x" is ${status}; only pending steps can change`,
          `step "x" is ${status}; only pending steps can change or, if running, be cancelled`,
        ],
      );
      assert.equal(out.plan, p);
    });
  }

  it("refuses updates to a step that does not exist", () => {
    const out = applyPlanUpdates(base(), [{ op: "cancel", id: "ghost", reason: "r" }], revRules);
    assert.deepEqual(
      out.refused.map((r) => r.reason),
      ['no step "ghost" in the plan'],
    );
  });

  it("refuses every update with the budget reason once max revisions are used", () => {
    const p = plan([step("a"), step("b")], { revision: 3 });
    const updates: PlanUpdate[] = [
      { op: "add", step: draft("c") },
      { op: "cancel", id: "a", reason: "r" },
    ];
    const out = applyPlanUpdates(p, updates, revRules);
    assert.deepEqual(out.applied, []);
    assert.deepEqual(out.refused, [
      { update: updates[0], reason: "revision budget of 3 is used up" },
      { update: updates[1], reason: "revision budget of 3 is used up" },
    ]);
    assert.equal(out.plan, p);
  });

  it("leaves the plan unchanged by a refused update while applying the valid ones", () => {
    const before = base();
    const out = applyPlanUpdates(
      before,
      [
        { op: "update", id: "b", tools: ["check_malware"] },
        { op: "update", id: "c", dependsOn: ["c"] },
        { op: "add", step: draft("d", { dependsOn: ["ghost"] }) },
        { op: "update", id: "b", expected: "pool domain seen in DNS logs" },
      ],
      revRules,
    );
    assert.equal(out.applied.length, 1);
    assert.equal(out.refused.length, 3);
    assert.match(out.refused[0]!.reason, /names unknown tool "check_malware"/);
    assert.match(out.refused[1]!.reason, /step "c" depends on itself/);
    assert.match(out.refused[2]!.reason, /step "d" depends on unknown step "ghost"/);
    const b = out.plan.steps.find((s) => s.id === "b")!;
    assert.deepEqual(b.tools, ["intel_lookup"]);
    assert.equal(b.expected, "pool domain seen in DNS logs");
    assert.deepEqual(out.plan.steps.find((s) => s.id === "c")!.dependsOn, ["a"]);
    assert.equal(
      out.plan.steps.some((s) => s.id === "d"),
      false,
    );
    assert.equal(out.plan.revision, 1);
  });

  it("refuses an add over the step cap, counting cancelled steps", () => {
    const p = plan([
      step("a", { status: "done" }),
      step("b", { status: "cancelled" }),
      step("c"),
      step("d"),
      step("e", { status: "cancelled" }),
    ]);
    const out = applyPlanUpdates(p, [{ op: "add", step: draft("g") }], revRules);
    assert.deepEqual(
      out.refused.map((r) => r.reason),
      ["the plan already has 5 of 5 steps"],
    );
  });

  it("checks each update against the plan as the earlier ones left it", () => {
    const out = applyPlanUpdates(
      base(),
      [
        { op: "add", step: draft("d") },
        { op: "add", step: draft("e", { dependsOn: ["d"] }) },
        { op: "update", id: "d", dependsOn: ["e"] },
      ],
      { ...revRules, maxSteps: 10 },
    );
    assert.equal(out.applied.length, 2);
    assert.deepEqual(
      out.refused.map((r) => r.reason),
      ["steps form a dependency cycle: d -> e -> d"],
    );
  });

  it("returns the plan as is for a reflection without updates", () => {
    const p = base();
    const out = applyPlanUpdates(p, [], revRules);
    assert.equal(out.plan, p);
    assert.equal(out.plan.revision, 0);
  });
});

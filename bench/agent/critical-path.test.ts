import assert from "node:assert/strict";
import { test } from "node:test";
import type { Plan, Step } from "../../functions/src/domain/plan.js";
import type { Reflection } from "../../functions/src/domain/reflection.js";
import type { StepResult } from "../../functions/src/domain/results.js";
import { criticalPath, waveDepth } from "./critical-path.js";

// Run with: node_modules/.bin/node --import tsx --test bench/agent/critical-path.test.ts

const AT = "2026-01-01T00:00:00.000Z";

function step(id: string, dependsOn: string[] = [], addedInRevision = 0): Step {
  return {
    id,
    description: id,
    tools: ["log_query"],
    expected: "x",
    dependsOn,
    status: "done",
    addedInRevision,
  };
}

function result(stepId: string, llmCalls: number, startedAt = AT): StepResult {
  return {
    stepId,
    status: "done",
    outcome: "answered",
    summary: "s",
    facts: [],
    iocs: [],
    toolCalls: [],
    iterations: llmCalls,
    usage: { llmCalls, inputTokens: 1, outputTokens: 1 },
    model: "m",
    startedAt,
    finishedAt: startedAt,
  };
}

function reflection(wave: number, afterSteps: string[], added: string[] = []): Reflection {
  return {
    achieved: false,
    insights: [],
    updates: [],
    rationale: "r",
    wave,
    afterSteps,
    applied: added.map((id) => ({ op: "add" as const, step: { ...step(id), dependsOn: [] } })),
    refused: [],
    skipped: false,
    usage: { llmCalls: 1, inputTokens: 1, outputTokens: 1 },
    model: "m",
    createdAt: AT,
  };
}

// The shape of bad-domain-sinkhole under ferret's defaults: two waves, a step added by the
// first reflection, and a dependent step that waited for that reflection although it did
// not need it.
const plan: Plan = {
  objective: "o",
  successCriteria: ["c"],
  constraints: [],
  revision: 1,
  steps: [
    step("intel", []),
    step("dns", []),
    step("flows", ["dns"]),
    step("host", ["dns"]),
    step("intel-2", [], 1),
  ],
};
const trace = {
  plan,
  results: [
    result("intel", 2),
    result("dns", 2),
    result("flows", 3),
    result("host", 2),
    result("intel-2", 2),
  ],
  reflections: [reflection(1, ["intel", "dns"], ["intel-2"]), reflection(2, ["flows", "host", "intel-2"])],
  plannerCalls: 1,
  concluderCalls: 1,
};

test("the critical path follows dependencies and the reflection that added a step", () => {
  const cp = criticalPath(trace);
  // plan 1 + dns 2 + flows 3 + final reflection 1 + conclude 1 (ties with the intel-2 chain).
  assert.equal(cp.calls, 8);
  assert.equal(cp.chain.at(0), "plan");
  assert.equal(cp.chain.at(-1), "conclude");
});

test("the wave schedule pays for the barrier: flows waited for the first reflection", () => {
  // plan 1 + wave 1 (2) + reflect 1 + wave 2 (3) + reflect 1 + conclude 1.
  assert.equal(waveDepth(trace), 9);
});

test("a strictly sequential trace has schedule depth equal to its call count", () => {
  const sequential = {
    plan: { ...plan, steps: [step("a"), step("b")], revision: 0 },
    results: [result("a", 2), result("b", 3)],
    reflections: [reflection(1, ["a"]), reflection(2, ["b"])],
    plannerCalls: 1,
    concluderCalls: 1,
  };
  assert.equal(waveDepth(sequential), 1 + 2 + 1 + 3 + 1 + 1);
  // Independent steps: the bound is the slower one plus the final reflection.
  assert.equal(criticalPath(sequential).calls, 1 + 3 + 1 + 1);
});

test("a step the last reflection added, run after it with no reflection to follow, reaches the conclusion without a cycle", () => {
  // Issue 30: "dependency cycle through reflect@2" emptied the section. The last reflection added
  // `intel-new-1`; it ran after that reflection and the last reflection was folded into the conclusion.
  const later = "2026-01-01T00:01:00.000Z";
  const folded = {
    plan: { ...plan, revision: 2, steps: [...plan.steps, step("intel-new-1", [], 2)] },
    results: [...trace.results, result("intel-new-1", 1, later)].map((r) =>
      r.stepId === "intel-new-1" ? { ...r, finishedAt: later } : r,
    ),
    reflections: [
      reflection(1, ["intel", "dns"], ["intel-2"]),
      reflection(2, ["flows", "host", "intel-2"], ["intel-new-1"]),
    ],
    plannerCalls: 1,
    concluderCalls: 1,
  };
  const cp = criticalPath(folded);
  // plan 1 + dns 2 + flows 3 + reflect@2 1 + intel-new-1 1 + conclude 1.
  assert.equal(cp.calls, 9);
  assert.deepEqual(cp.chain.slice(-3), ["reflect@2", "intel-new-1×1", "conclude"]);
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Step, StepSchema } from "../../../functions/src/domain/plan.js";
import { stepForExecution } from "../../../functions/src/domain/planned-calls.js";
import { DEFAULT_POLICY } from "../../../functions/src/domain/policy.js";

const planned: Step = StepSchema.parse({
  id: "intel",
  description: "look up the caller's address",
  tools: ["threat_intel_lookup"],
  expected: "a verdict for the address",
  calls: [{ tool: "threat_intel_lookup", args: { indicator: "{{finding.callerIp}}" } }],
  status: "pending",
  addedInRevision: 0,
});

describe("planned calls as configuration", () => {
  it("runs planned calls by default", () => {
    assert.equal(DEFAULT_POLICY.plannedCalls, "run");
    assert.deepEqual(stepForExecution(planned, "run").calls, planned.calls);
  });

  it("hands the step to the executor model without its calls under `executor`, the rest unchanged", () => {
    const asRun = stepForExecution(planned, "executor");
    assert.equal(asRun.calls, undefined);
    assert.equal("calls" in asRun, false);
    const { calls: _calls, ...rest } = planned;
    assert.deepEqual(asRun, rest);
    assert.ok(planned.calls, "the stored plan keeps its calls");
  });
});

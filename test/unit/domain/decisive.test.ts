import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { earlyReflectionDue, isDecisive } from "../../../functions/src/domain/decisive.js";
import type { ToolCall } from "../../../functions/src/domain/results.js";
import { plan, step, stepResult } from "../../fixtures/plans.js";

const intelCall = (verdict: "malicious" | "suspicious" | "benign"): ToolCall => ({
  id: "c1",
  name: "threat_intel_lookup",
  args: {},
  ok: true,
  summary: `1 looked up: ${verdict}`,
  durationMs: 3,
  verdicts: [{ type: "ip", value: "203.0.113.88", verdict, sources: ["stix"] }],
});

describe("decisive steps", () => {
  it("is decisive when the planner marked it, or when a tool recorded a malicious verdict", () => {
    assert.equal(isDecisive(step("a", { decisive: true }), stepResult("a")), true);
    assert.equal(isDecisive(step("a"), stepResult("a", { toolCalls: [intelCall("malicious")] })), true);
    assert.equal(isDecisive(step("a"), stepResult("a", { toolCalls: [intelCall("suspicious")] })), false);
    assert.equal(isDecisive(step("a"), stepResult("a", { toolCalls: [intelCall("benign")] })), false);
    // Words in a summary decide nothing: only the structured verdict does.
    assert.equal(
      isDecisive(step("a"), stepResult("a", { summary: "verdict: malicious", facts: ["malicious"] })),
      false,
    );
  });

  it("reflects early only under every_wave, after a decisive step, while a sibling with model rounds ahead runs", () => {
    const decisive = step("intel", { status: "done", decisive: true });
    const result = stepResult("intel");
    const wave = { reflection: "every_wave" as const };
    const running = plan([decisive, step("logs", { status: "running" })]);
    const pending = plan([decisive, step("logs")]);
    const fixed = plan([
      decisive,
      step("logs", { status: "running", calls: [{ tool: "intel_lookup", args: { ip: "203.0.113.88" } }] }),
    ]);
    const finished = plan([decisive, step("logs", { status: "done" }), step("x", { status: "cancelled" })]);
    assert.equal(earlyReflectionDue(running, "intel", result, wave), true);
    assert.equal(
      earlyReflectionDue(pending, "intel", result, wave),
      false,
      "a pending step waits for the wave's reflection anyway",
    );
    assert.equal(
      earlyReflectionDue(fixed, "intel", result, wave),
      false,
      "a running fixed-call step has no model round to save",
    );
    assert.equal(earlyReflectionDue(finished, "intel", result, wave), false, "nothing left to change");
    assert.equal(earlyReflectionDue(running, "intel", result, { reflection: "every_step" }), false);
    assert.equal(earlyReflectionDue(running, "intel", result, { reflection: "on_error" }), false);
    const plain = plan([step("intel", { status: "done" }), step("logs", { status: "running" })]);
    assert.equal(earlyReflectionDue(plain, "intel", result, wave), false, "not decisive");
    assert.equal(earlyReflectionDue(running, "ghost", result, wave), false, "unknown step");
  });
});

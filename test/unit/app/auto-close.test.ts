import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { autoCloseDecision, autoCloseIfAllowed } from "../../../functions/src/app/auto-close.js";
import { ConfigSchema } from "../../../functions/src/config/config.js";
import type { Investigation } from "../../../functions/src/domain/investigation.js";
import type { StepResult } from "../../../functions/src/domain/results.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import * as fx from "../notify/fixtures.js";

const on = ConfigSchema.parse({ scc: { writeback: true, autoClose: true, autoCloseMinConfidence: 0.9 } });

const dismissal = (over: Partial<Investigation> = {}): Investigation =>
  fx.investigation({
    status: "concluded",
    conclusion: fx.conclusion({
      verdict: "false_positive",
      confidence: 0.95,
      producedBy: { model: "gemini-2.5-flash", offline: false },
    }),
    fellBackToOffline: false,
    ...over,
  });

function maliciousLookup(): StepResult {
  const base = fx.stepResult();
  const first = base.toolCalls[0];
  assert.ok(first);
  return {
    ...base,
    toolCalls: [
      {
        ...first,
        verdicts: [{ type: "ip", value: "203.0.113.66", verdict: "malicious", sources: ["stix"] }],
      },
    ],
  };
}

describe("auto-close", () => {
  it("closes a confident Gemini dismissal nobody contradicts, when switched on", () => {
    assert.deepEqual(autoCloseDecision(dismissal(), [fx.stepResult()], on), { close: true });
  });

  it("is off by default", () => {
    assert.equal(autoCloseDecision(dismissal(), [], ConfigSchema.parse({})).close, false);
    assert.equal(
      autoCloseDecision(dismissal(), [], ConfigSchema.parse({ scc: { autoClose: true } })).close,
      false,
    );
  });

  it("each condition on its own keeps the finding open", () => {
    const c = dismissal().conclusion;
    assert.ok(c);
    const cases: [string, Investigation, StepResult[]][] = [
      ["true positive", dismissal({ conclusion: { ...c, verdict: "true_positive" } }), []],
      ["inconclusive", dismissal({ conclusion: { ...c, verdict: "inconclusive" } }), []],
      ["low confidence", dismissal({ conclusion: { ...c, confidence: 0.89 } }), []],
      [
        "offline rules",
        dismissal({ conclusion: { ...c, producedBy: { model: "offline-playbook", offline: true } } }),
        [],
      ],
      ["fell back", dismissal({ fellBackToOffline: true }), []],
      ["held for a person", dismissal({ status: "needs_human" }), []],
      ["intel says malicious", dismissal(), [maliciousLookup()]],
      [
        "analyst disputed",
        dismissal({
          analystDecisions: [
            {
              actionId: "act-0123456789abcdef01234567",
              kind: "dispute",
              by: { id: "U0ANALYST" },
              verdict: "true_positive",
              reason: "no",
              at: "2024-05-01T12:00:00.000Z",
            },
          ],
        }),
        [],
      ],
    ];
    for (const [name, inv, results] of cases)
      assert.equal(autoCloseDecision(inv, results, on).close, false, name);
  });

  it("writes the marks, then INACTIVE; nothing when not allowed", async () => {
    const calls: string[] = [];
    const scc = {
      setSecurityMarks: async (_n: string, marks: Record<string, string>) => {
        calls.push(`marks ${marks.ferret_auto_closed} ${marks.ferret_verdict}`);
      },
      setMute: async () => {
        calls.push("mute");
      },
      setInactive: async () => {
        calls.push("inactive");
      },
    };
    const deps = { config: on, scc, logger: silentLogger, now: () => new Date("2024-05-01T12:00:00Z") };
    await autoCloseIfAllowed(dismissal(), [], deps);
    assert.deepEqual(calls, ["marks true false_positive", "inactive"]);
    calls.length = 0;
    await autoCloseIfAllowed(dismissal(), [maliciousLookup()], deps);
    assert.deepEqual(calls, []);
  });
});

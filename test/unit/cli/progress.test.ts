import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { printConclusion } from "../../../functions/src/cli/progress.js";
import * as fx from "../notify/fixtures.js";

function printed(inv: Parameters<typeof printConclusion>[1]): string[] {
  const lines: string[] = [];
  printConclusion({ line: (l) => lines.push(...l.split("\n")) }, inv);
  return lines;
}

describe("printConclusion", () => {
  it("prints a concluded verdict as the verdict", () => {
    const lines = printed(fx.investigation({ status: "concluded", conclusion: fx.conclusion() }));
    assert.ok(lines.includes("■ Conclusion"));
    assert.ok(lines.some((l) => /^ {2}verdict {5}true_positive {2}confidence 85%/.test(l)));
    assert.ok(!lines.some((l) => l.includes("draft")));
  });

  it("prints a held conclusion as a draft, with why it was held", () => {
    const lines = printed(
      fx.investigation({
        status: "needs_human",
        reason:
          "the model concluded benign (97%), but threat intel marks ip 203.0.113.66 (stix) as malicious",
        conclusion: fx.conclusion({ verdict: "benign", confidence: 0.97 }),
      }),
    );
    assert.ok(lines.includes("■ Conclusion  (needs_human: draft, not applied)"));
    assert.ok(
      lines.some((l) => l.startsWith("  why         the model concluded benign (97%), but threat intel")),
    );
    assert.ok(lines.some((l) => /^ {2}verdict {5}benign \(draft\) {2}confidence 97%/.test(l)));
  });

  it("prints analysts' decisions under ferret's verdict, without their control characters", () => {
    const lines = printed(
      fx.investigation({
        status: "concluded",
        conclusion: fx.conclusion(),
        analystDecisions: [
          {
            actionId: "act-0123456789abcdef01234567",
            kind: "dispute",
            by: { id: "U0ANALYST", name: "ana\u001b[31m" },
            ferretVerdict: "true_positive",
            verdict: "benign",
            reason: "load test",
            at: "2024-05-01T12:00:00.000Z",
          },
        ],
      }),
    );
    assert.ok(
      lines.some((l) => /^ {2}verdict {5}true_positive/.test(l)),
      "ferret's verdict stays",
    );
    assert.ok(
      lines.includes("  analyst     disputed → benign by ana at 2024-05-01T12:00:00.000Z: load test"),
    );
  });
});

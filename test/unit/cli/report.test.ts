import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decisionReport } from "../../../functions/src/app/decision-report.js";
import { reportCommand } from "../../../functions/src/cli/report.js";
import type { AnalystDecision } from "../../../functions/src/domain/analyst.js";
import type { Investigation } from "../../../functions/src/domain/investigation.js";
import * as fx from "../notify/fixtures.js";

const decision = (over: Partial<AnalystDecision>): AnalystDecision => ({
  actionId: "act-0123456789abcdef01234567",
  kind: "confirm",
  by: { id: "U0ANALYST", name: "ana" },
  at: "2024-05-01T12:00:00.000Z",
  ...over,
});

function inv(n: number, over: Partial<Investigation>): Investigation {
  return fx.investigation({
    id: `inv-${String(n).padStart(24, "0")}`,
    status: "concluded",
    createdAt: "2024-05-01T10:00:00.000Z",
    ...over,
  });
}

const conclusion = (verdict: "true_positive" | "benign", offline: boolean, seconds: number) =>
  fx.conclusion({
    verdict,
    producedBy: { model: offline ? "offline-playbook" : "gemini-2.5-flash", offline },
    createdAt: new Date(Date.parse("2024-05-01T10:00:00.000Z") + seconds * 1000).toISOString(),
  });

const sample = (): Investigation[] => [
  inv(1, { conclusion: conclusion("true_positive", false, 60), analystDecisions: [decision({})] }),
  inv(2, {
    conclusion: conclusion("true_positive", false, 120),
    analystDecisions: [
      decision({ kind: "confirm", at: "2024-05-01T11:00:00.000Z" }),
      decision({ kind: "dispute", verdict: "benign", reason: "load test", at: "2024-05-01T13:00:00.000Z" }),
    ],
  }),
  inv(3, {
    conclusion: conclusion("benign", true, 30),
    finding: fx.finding({ category: "Execution: Cryptocurrency Mining Hash Match" }),
    analystDecisions: [
      decision({ kind: "dispute", verdict: "benign", reason: "same verdict, other detail" }),
    ],
  }),
  inv(4, { conclusion: conclusion("benign", true, 600) }),
  inv(5, { status: "failed" }),
];

describe("ferret report", () => {
  it("agreement per category and per model counts the latest decision; a dispute keeping the verdict agrees", () => {
    const r = decisionReport(sample());
    assert.equal(r.investigations, 5);
    assert.equal(r.withVerdict, 4);
    assert.equal(r.decided, 3);
    assert.deepEqual(r.agreement.overall, { key: "all", decided: 3, agreed: 2, rate: 2 / 3 });
    assert.deepEqual(
      r.agreement.byModel.map((x) => [x.key, x.agreed, x.decided]),
      [
        ["gemini-2.5-flash", 1, 2],
        ["offline", 1, 1],
      ],
    );
    assert.deepEqual(
      r.agreement.byCategory.map((x) => [x.key, x.agreed, x.decided]),
      [
        ["Persistence: IAM Anomalous Grant", 1, 2],
        ["Execution: Cryptocurrency Mining Hash Match", 1, 1],
      ],
    );
    assert.deepEqual(
      r.disputed.map((d) => [d.investigationId.slice(-1), d.ferretVerdict, d.analystVerdict, d.reason]),
      [["2", "true_positive", "benign", "load test"]],
    );
    assert.deepEqual(r.timeToVerdictSeconds, { count: 4, median: 60, p90: 600, max: 600 });
  });

  it("prints the report from the store, without control characters from analysts' text", async () => {
    const lines: string[] = [];
    const hostile = sample();
    const second = hostile[1];
    // The name is printed as is (the reason is JSON-quoted), so it is the one that could reach the terminal raw.
    if (second?.analystDecisions?.[1])
      second.analystDecisions[1].by = { id: "U0ANALYST", name: "ana\u001b[2J" };
    let asked: unknown[] = [];
    const command = reportCommand(
      () => ({
        store: {
          listChangedSince: async (q) => {
            asked = [...asked, q.status];
            return q.status === "concluded" ? hostile : [];
          },
        },
        close: async () => {},
      }),
      { line: (t) => lines.push(t) },
      () => new Date("2024-05-10T00:00:00Z"),
    );
    await command.parseAsync(["node", "report", "--days", "30"]);
    // Failed investigations count for the planning metrics' completion rate.
    assert.deepEqual(asked, ["concluded", "needs_human", "failed"]);
    const text = lines.join("\n");
    assert.match(text, /Planning \(the design's metrics over these \d+ investigations\):\n {2}completion/);
    assert.match(text, /Agreement with ferret: 67% \(2\/3\)/);
    assert.match(text, /ferret true_positive → analyst benign/);
    assert.ok(!text.includes("\u001b"), "no escape sequences reach the terminal");
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planningMetricLines, planningMetrics } from "../../../functions/src/app/planning-metrics.js";
import type { Investigation } from "../../../functions/src/domain/investigation.js";
import type { StepStatus } from "../../../functions/src/domain/plan.js";
import * as fx from "../notify/fixtures.js";

function inv(n: number, revision: number, statuses: readonly StepStatus[], verdict: boolean): Investigation {
  const base = fx.plan();
  const template = base.steps[0];
  if (!template) throw new Error("fixture plan has no step");
  return fx.investigation({
    id: `inv-${String(n).padStart(24, "0")}`,
    status: verdict ? "concluded" : "failed",
    plan: { ...base, revision, steps: statuses.map((status, i) => ({ ...template, id: `s${i}`, status })) },
    ...(verdict ? { conclusion: fx.conclusion() } : { conclusion: undefined }),
  });
}

const byName = (metrics: ReturnType<typeof planningMetrics>) =>
  Object.fromEntries(metrics.map((m) => [m.name, m]));

describe("the planning design's metrics", () => {
  it("counts completion, first plans that complete, revisions, first-try success and recovery as defined", () => {
    const m = byName(
      planningMetrics([
        inv(1, 0, ["done", "done"], true),
        inv(2, 2, ["done", "failed", "done"], true),
        inv(3, 1, ["failed", "cancelled"], false),
        inv(4, 0, ["done", "pending"], true),
      ]),
    );
    assert.equal(m.completion?.value, 3 / 4);
    assert.equal(m.firstPlanCompletes?.value, 2 / 4);
    assert.equal(m.revisionRate?.value, 2 / 4);
    assert.equal(m["meanRevisions (mean)"]?.value, 3 / 4);
    assert.equal(m.firstTrySuccess?.value, 5 / 7, "done over done+failed; pending and cancelled never ended");
    assert.equal(m.errorRecovery?.value, 1 / 2);
    assert.equal(m.completion?.met, false, "75% misses the design's > 90%");
    assert.equal(m.revisionRate?.met, false, "50% misses < 30%");
    assert.equal(m["meanRevisions (mean)"]?.met, true);
  });

  it("says nothing was measured rather than 0% when there is nothing to measure", () => {
    const m = byName(planningMetrics([inv(1, 0, ["done"], true)]));
    assert.equal(m.errorRecovery?.value, null);
    assert.equal(m.errorRecovery?.met, null);
    assert.match(
      planningMetricLines(planningMetrics([])).join("\n"),
      /completion\s+—\s+over 0\s+\(target > 90%\)/,
    );
  });
});

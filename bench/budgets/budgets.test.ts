import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { measureBudgets } from "./measure.js";
import { printBudgets } from "./report.js";

describe("bench: budgets that stop work", { timeout: 120_000 }, () => {
  it("deadlines abort, caps cap, and the scan budget holds; without them the same runs overspend", async () => {
    const b = await measureBudgets();
    const { deadline, fanOut, scan } = b;

    assert.ok(deadline.withSignal.modelCallsBefore > 0, "the step was working before its deadline");
    assert.equal(deadline.withSignal.modelCallsAfter, 0);
    assert.equal(deadline.withSignal.toolRunsAfter, 0);
    assert.ok(
      deadline.withoutSignal.modelCallsAfter > 0,
      "without the signal the abandoned step kept calling",
    );

    assert.equal(fanOut.capped.toolCallsRun, 4);
    assert.equal(fanOut.uncapped.toolCallsRun, 8);
    // 20 000-token allowance: the executor's 2 000, then four shares of 4 500; each sub-agent may
    // pass its share by at most one 1 000-token call.
    assert.ok(fanOut.capped.tokens <= 20_000 + 4 * 1_000, `capped tokens ${fanOut.capped.tokens}`);
    assert.ok(fanOut.uncapped.modelCalls > 4 * fanOut.capped.modelCalls, "the cap and share cut model calls");

    assert.ok(scan.budgeted.bytesScanned <= scan.budgeted.budgetBytes);
    assert.ok(scan.budgeted.queriesRun < scan.budgeted.queriesAsked, "the budget refused some queries");
    assert.ok(
      scan.unbudgeted.bytesScanned > scan.unbudgeted.budgetBytes,
      "without it the scans pass the budget",
    );

    assert.match(printBudgets(b), /BUDGETS THAT STOP WORK/);
  });
});

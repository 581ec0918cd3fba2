import { table } from "../lib/table.js";
import type { BudgetsSection } from "./measure.js";

const GiB = 1024 ** 3;

/** The budgets table: each budget's figure with it and without it. */
export function printBudgets(b: BudgetsSection): string {
  const { deadline, fanOut, scan } = b;
  return [
    "BUDGETS THAT STOP WORK (in process, scripted models; without = the code path before the budget)",
    table(
      ["budget", "figure", "with", "without"],
      [
        [
          "step deadline (300 ms)",
          "model calls after it",
          deadline.withSignal.modelCallsAfter,
          deadline.withoutSignal.modelCallsAfter,
        ],
        ["", "tool runs after it", deadline.withSignal.toolRunsAfter, deadline.withoutSignal.toolRunsAfter],
        [
          "8 log_analysis calls in one turn",
          "sub-agent sessions run",
          fanOut.capped.toolCallsRun,
          fanOut.uncapped.toolCallsRun,
        ],
        [
          "  (cap 4 per turn, 20k-token step share)",
          "model calls",
          fanOut.capped.modelCalls,
          fanOut.uncapped.modelCalls,
        ],
        ["", "tokens", fanOut.capped.tokens, fanOut.uncapped.tokens],
        [
          `12 queries × 7 GiB, ${scan.budgeted.budgetBytes / GiB} GiB budget`,
          "queries run",
          scan.budgeted.queriesRun,
          scan.unbudgeted.queriesRun,
        ],
        ["", "GiB scanned", scan.budgeted.bytesScanned / GiB, scan.unbudgeted.bytesScanned / GiB],
      ],
    ),
  ].join("\n");
}

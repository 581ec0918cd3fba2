import assert from "node:assert/strict";
import { test } from "node:test";
import { planningMetricLines, planningMetricsOf } from "../../../functions/src/app/planning-metrics.js";
import { summarize } from "../../../functions/src/cli/eval.js";
import { runEval } from "../../../functions/src/eval/run-eval.js";
import { createLogger } from "../../../functions/src/platform/logger.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";

// The bar: with the offline model, every scenario's verdict is right, reached
// through the same tools an LLM would use (the offline model never reads expected.json).
test("ferret eval on examples/scenarios with the offline model gets every verdict right", {
  timeout: 300_000,
}, async (t) => {
  await ensureEmulators();
  const outcomes = await runEval({
    scenariosDir: "examples/scenarios",
    model: "offline",
    projectId: uniqueProjectId("eval"),
    logger: createLogger({ minSeverity: "ERROR" }),
  });
  const totals = summarize(outcomes);
  t.diagnostic(
    `verdicts ${totals.verdictsRight}/${totals.scenarios}, IOC recall ${totals.iocRecall.toFixed(2)}, evidence recall ${totals.evidenceRecall.toFixed(2)}, ${totals.llmCalls} model calls`,
  );
  assert.ok(outcomes.length >= 6, "at least six scenarios");
  for (const o of outcomes) {
    assert.equal(o.error, undefined, `${o.scenario} errored`);
    // The offline model's dismissals wait for a person by default; everything else concludes.
    const dismissal = o.expected === "benign" || o.expected === "false_positive";
    assert.equal(o.status, dismissal ? "needs_human" : "concluded", `${o.scenario} ended ${o.status}`);
    assert.equal(o.score?.heldDraft, dismissal, `${o.scenario} held as an offline draft`);
    assert.ok(o.score?.verdictRight, `${o.scenario}: got ${o.score?.verdict}, expected ${o.expected}`);
    assert.equal(o.score?.iocRecall, 1, `${o.scenario} missed IOCs ${o.score?.missingIocs.join(", ")}`);
    assert.ok(o.llmCalls > 0, "the offline model's calls are counted");
    assert.equal(o.inputTokens + o.outputTokens, 0, "and no tokens: no LLM ran (issue 29)");
  }
  assert.ok(totals.evidenceRecall >= 0.9, `evidence recall ${totals.evidenceRecall}`);
  // The planning design's metrics over the same investigations: every one reached a verdict.
  const planning = planningMetricsOf(outcomes.flatMap((o) => o.planning));
  for (const line of planningMetricLines(planning)) t.diagnostic(line);
  const completion = planning.find((m) => m.name === "completion");
  assert.equal(completion?.over, outcomes.length, "one completion sample per scenario");
  assert.equal(completion?.value, 1);
});

import { formatUsd } from "../../functions/src/model/cost.js";
import { DEFAULT_GEMINI_MODEL } from "../../functions/src/model/gemini-options.js";
import type { AgentRun, AgentSection } from "../agent/compare.js";
import { ms, table } from "../lib/table.js";

function runRow(run: AgentRun): (string | number)[] {
  return [
    run.scenario,
    run.config,
    run.llmCalls,
    run.inputTokens,
    run.outputTokens,
    formatUsd(run.estimatedUsd),
    ms(run.wallMs),
    `${run.verdict ?? run.status}${run.correct ? "" : " ✗"}`,
    run.scheduleDepthCalls,
    run.criticalPath.calls,
  ];
}

export function printAgent(s: AgentSection): string {
  const runs = table(
    [
      "scenario",
      "config",
      "LLM calls",
      "input tok",
      "output tok",
      `≈ USD (${DEFAULT_GEMINI_MODEL})`,
      "wall",
      "verdict",
      "seq calls",
      "CP calls",
    ],
    [
      ...s.rows.flatMap((r) => [runRow(r.ferret), runRow(r.baseline)]),
      ...(["ferret", "baseline"] as const).map((config) => [
        "TOTAL",
        config,
        s.totals[config].llmCalls,
        s.totals[config].inputTokens,
        s.totals[config].outputTokens,
        formatUsd(s.totals[config].estimatedUsd),
        ms(s.totals[config].wallMs),
        "",
        "",
        "",
      ]),
    ],
  );
  const ratios = table(
    [
      "scenario",
      "calls B/F",
      "tokens B/F",
      "wall B/F",
      "verdicts",
      "ferret CP bound",
      "ferret − bound",
      "ferret / bound",
    ],
    [
      ...s.rows.map((r) => [
        r.scenario,
        r.ratios.llmCalls,
        r.ratios.tokens,
        r.ratios.wallMs,
        r.agree ? "agree" : `DIFFER (${r.ferret.verdict} / ${r.baseline.verdict})`,
        ms(r.toCriticalPath.boundMs),
        ms(r.toCriticalPath.distanceMs),
        r.toCriticalPath.ratio,
      ]),
      [
        "TOTAL",
        s.totals.ratios.llmCalls,
        s.totals.ratios.tokens,
        s.totals.ratios.wallMs,
        s.totals.allAgree ? "all agree" : "some differ",
        ms(s.totals.criticalPathMs),
        ms(s.totals.ferret.wallMs - s.totals.criticalPathMs),
        Math.round((s.totals.ferret.wallMs / s.totals.criticalPathMs) * 100) / 100,
      ],
    ],
  );
  const chains = s.rows.map((r) => `  ${r.scenario}: ${r.ferret.criticalPath.chain.join(" → ")}`).join("\n");
  const checks = [
    s.totals.ferretAllCorrect ? "ferret right on every scenario" : "ferret WRONG on some scenario (✗)",
    s.totals.baselineAllCorrect ? "baseline right on every scenario" : "baseline WRONG on some scenario (✗)",
  ].join("; ");
  return [
    `1. ORCHESTRATION — ${s.latencyMs} ms simulated latency per model call, offline playbook model, Firestore emulator, real tools`,
    "   ferret = default policy (up to 4 steps per wave, reflect per wave); baseline = 1 step per wave, reflect after every step",
    "   seq calls = model calls one after the other under the schedule run; CP calls = critical-path lower bound",
    "",
    runs,
    "",
    ratios,
    "",
    "ferret's critical paths:",
    chains,
    "",
    `checks: ${checks}`,
  ].join("\n");
}

import { formatUsd } from "../../functions/src/model/cost.js";
import { DEFAULT_GEMINI_MODEL } from "../../functions/src/model/gemini-options.js";
import type { AgentRun, AgentSection } from "../agent/compare.js";
import type { Measured, Ratios, Totals } from "../agent/summary.js";
import { TARGET_RATIO } from "../agent/summary.js";
import { ms, table } from "../lib/table.js";
import type { ReactRun } from "../react/run.js";

const COLUMNS = ["ferret", "baseline", "react"] as const;

function verdictCell(run: Measured): string {
  // A held draft (the offline dismissal policy) shows its verdict, marked as held.
  const held = run.status === "needs_human" && run.verdict !== null ? " (held)" : "";
  return `${run.verdict ?? run.status}${held}${run.correct ? "" : " ✗"}`;
}

function runRow(run: AgentRun | ReactRun): (string | number)[] {
  const workflow = run.config === "react" ? undefined : (run as AgentRun);
  return [
    run.scenario,
    run.config,
    run.llmCalls,
    workflow ? workflow.repairCalls : "",
    run.inputTokens,
    run.outputTokens,
    formatUsd(run.estimatedUsd),
    ms(run.wallMs),
    verdictCell(run),
    workflow ? workflow.scheduleDepthCalls : "",
    workflow ? workflow.criticalPath.calls : "",
    decisiveCell(run),
  ];
}

/** "2/2", or "1/2 ✗ missed ssh_logins_from_ip(ip=…)": the decisive evidence a run queried. */
function decisiveCell(run: AgentRun | ReactRun): string {
  const d = run.decisive;
  if (d.of === 0) return "–";
  return d.missing.length === 0
    ? `${d.queried}/${d.of}`
    : `${d.queried}/${d.of} ✗ missed ${d.missing.join(", ")}`;
}

function totalRow(config: (typeof COLUMNS)[number], t: Totals): (string | number)[] {
  return [
    "TOTAL",
    config,
    t.llmCalls,
    "",
    t.inputTokens,
    t.outputTokens,
    formatUsd(t.estimatedUsd),
    ms(t.wallMs),
    "",
    "",
    "",
    "",
  ];
}

function ratioCells(r: Ratios): number[] {
  return [r.llmCalls, r.tokens, r.wallMs];
}

export function printAgent(s: AgentSection): string {
  const runs = table(
    [
      "scenario",
      "config",
      "LLM calls",
      "repairs",
      "input tok",
      "output tok",
      `≈ USD (${DEFAULT_GEMINI_MODEL})`,
      "wall",
      "verdict",
      "seq calls",
      "CP calls",
      "decisive queried",
    ],
    [
      ...s.rows.flatMap((r) => [runRow(r.ferret), runRow(r.baseline), runRow(r.react)]),
      ...COLUMNS.map((config) => totalRow(config, s.totals[config])),
    ],
  );
  const ratios = table(
    [
      "scenario",
      "ferret/B calls",
      "ferret/B tokens",
      "ferret/B wall",
      "react/B calls",
      "react/B tokens",
      "react/B wall",
      "verdicts (ferret / baseline / react)",
    ],
    [
      ...s.rows.map((r) => [
        r.scenario,
        ...ratioCells(r.vsBaseline.ferret),
        ...ratioCells(r.vsBaseline.react),
        `${r.agree ? "same" : "DIFFER"}: ${verdictCell(r.ferret)} / ${verdictCell(r.baseline)} / ${verdictCell(r.react)}`,
      ]),
      [
        "TOTAL",
        ...ratioCells(s.totals.vsBaseline.ferret),
        ...ratioCells(s.totals.vsBaseline.react),
        s.totals.allAgree ? "all the same" : "some differ",
      ],
    ],
  );
  const bound = table(
    ["scenario", "ferret CP bound", "ferret − bound", "ferret / bound"],
    [
      ...s.rows.map((r) => [
        r.scenario,
        ms(r.toCriticalPath.boundMs),
        ms(r.toCriticalPath.distanceMs),
        r.toCriticalPath.ratio,
      ]),
      [
        "TOTAL",
        ms(s.totals.criticalPathMs),
        ms(s.totals.ferret.wallMs - s.totals.criticalPathMs),
        Math.round((s.totals.ferret.wallMs / s.totals.criticalPathMs) * 100) / 100,
      ],
    ],
  );
  const chains = s.rows.map((r) => `  ${r.scenario}: ${r.ferret.criticalPath.chain.join(" → ")}`).join("\n");
  const targets = s.totals.targets
    .map((t) => `${t.metric} ${Number.isFinite(t.ratio) ? t.ratio : "–"}× ${t.met ? "met" : "NOT met"}`)
    .join(", ");
  const checks = [
    s.totals.ferretAllCorrect ? "ferret right on every scenario" : "ferret WRONG on some scenario (✗)",
    s.totals.baselineAllCorrect ? "baseline right on every scenario" : "baseline WRONG on some scenario (✗)",
    s.totals.reactAllCorrect ? "react right on every scenario" : "react WRONG on some scenario (✗)",
  ].join("; ");
  const overReact = s.rows.filter(
    (r) => r.ferret.llmCalls > r.react.llmCalls || tokens(r.ferret) > tokens(r.react),
  );
  const vsReact =
    overReact.length === 0
      ? `ferret used no more calls and tokens than the ReAct loop on each of ${s.rows.length} scenario(s)`
      : `ferret used MORE than the ReAct loop on ${overReact
          .map(
            (r) =>
              `${r.scenario} (${r.ferret.llmCalls} vs ${r.react.llmCalls} calls, ${tokens(r.ferret)} vs ${tokens(r.react)} tokens)`,
          )
          .join("; ")}`;
  const missedDecisive = s.rows.filter((r) => r.ferret.decisive.missing.length > 0);
  const decisive =
    missedDecisive.length === 0
      ? `ferret queried the decisive evidence on each of ${s.rows.length} scenario(s)`
      : `ferret MISSED decisive evidence on ${missedDecisive.map((r) => `${r.scenario} (${r.ferret.decisive.missing.join(", ")})`).join("; ")}`;
  const failed = (s.failures ?? []).map((f) => `  ${f.scenario}: ${f.error}`).join("\n");
  return [
    `1. ORCHESTRATION — ${s.latencyMs} ms simulated latency per model call, offline playbook rules, Firestore emulator, real tools`,
    "   ferret and baseline run workflows/investigate.yaml on the local runner, in process; they differ only in configuration:",
    "   ferret = default policy (up to 4 model steps per wave, planned-call steps beside them, reflect per wave); baseline = 1 step per wave, reflect after every step, the executor model runs every step's calls",
    `   react = one ReAct loop (bench/react): every tool on every turn, no plan, no reflection, at most ${s.react.maxTurns} turns`,
    "   seq calls = model calls one after the other under the schedule run; CP calls = critical-path lower bound",
    "",
    runs,
    "",
    "against the sequential baseline (B); below 1 is fewer:",
    ratios,
    "",
    `targets for ferret (≤ ${TARGET_RATIO}× the baseline): ${targets}`,
    "",
    bound,
    "",
    "ferret's critical paths:",
    chains,
    "",
    `per scenario against ReAct: ${vsReact}`,
    `decisive evidence: ${decisive}`,
    ...(failed ? ["", "scenarios that failed to run (left out of the tables):", failed] : []),
    "",
    `checks: ${checks}`,
  ].join("\n");
}

function tokens(r: { inputTokens: number; outputTokens: number }): number {
  return r.inputTokens + r.outputTokens;
}

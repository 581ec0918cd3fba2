import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PlanningMetric, planningMetricLines, planningMetricsOf } from "../app/planning-metrics.js";
import { runEval, type ScenarioOutcome } from "../eval/run-eval.js";
import { startEmulators } from "../local/emulators.js";
import { createLogger } from "../platform/logger.js";
import type { Printer } from "./progress.js";

export interface EvalCommandOptions {
  json: boolean;
  model: "auto" | "gemini" | "offline";
}

export interface EvalReport {
  scenarios: ScenarioOutcome[];
  totals: {
    scenarios: number;
    verdictsRight: number;
    /** Offline dismissals held for a person by model.offlineDismissals: hold. */
    heldDrafts: number;
    iocRecall: number;
    evidenceRecall: number;
    llmCalls: number;
    inputTokens: number;
    outputTokens: number;
    wallMs: number;
  };
  /** The planning design's metrics over the scenarios' investigations, with its targets. */
  planning: PlanningMetric[];
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
/** The offline playbook model reads and writes no tokens: "-", not a made-up count. */
const tokens = (input: number, output: number) => (input + output === 0 ? "-" : `${input}/${output}`);

export function summarize(scenarios: ScenarioOutcome[]): EvalReport["totals"] {
  const scored = scenarios.filter((s) => s.score);
  const mean = (pick: (s: ScenarioOutcome) => number) =>
    scored.length === 0 ? 0 : scored.reduce((sum, s) => sum + pick(s), 0) / scored.length;
  return {
    scenarios: scenarios.length,
    verdictsRight: scenarios.filter((s) => s.score?.verdictRight).length,
    heldDrafts: scenarios.filter((s) => s.score?.heldDraft).length,
    iocRecall: mean((s) => s.score?.iocRecall ?? 0),
    evidenceRecall: mean((s) => s.score?.evidenceRecall ?? 0),
    llmCalls: scenarios.reduce((n, s) => n + s.llmCalls, 0),
    inputTokens: scenarios.reduce((n, s) => n + s.inputTokens, 0),
    outputTokens: scenarios.reduce((n, s) => n + s.outputTokens, 0),
    wallMs: scenarios.reduce((n, s) => n + s.wallMs, 0),
  };
}

export function renderTable(report: EvalReport): string[] {
  const header = [
    "scenario",
    "expected",
    "got",
    "ok",
    "held",
    "IOC recall",
    "evidence",
    "model calls",
    "tokens in/out",
    "wall",
  ];
  const rows = report.scenarios.map((s) => [
    s.scenario,
    s.expected,
    s.score?.verdict ?? s.status,
    s.score?.verdictRight ? "yes" : "NO",
    s.score?.heldDraft ? "draft" : "-",
    s.score ? pct(s.score.iocRecall) : "-",
    s.score ? pct(s.score.evidenceRecall) : "-",
    String(s.llmCalls),
    tokens(s.inputTokens, s.outputTokens),
    `${(s.wallMs / 1000).toFixed(1)}s`,
  ]);
  const t = report.totals;
  rows.push([
    "TOTAL",
    "",
    "",
    `${t.verdictsRight}/${t.scenarios}`,
    String(t.heldDrafts),
    pct(t.iocRecall),
    pct(t.evidenceRecall),
    String(t.llmCalls),
    tokens(t.inputTokens, t.outputTokens),
    `${(t.wallMs / 1000).toFixed(1)}s`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  const out = [line(header), widths.map((w) => "-".repeat(w)).join("  ")];
  for (const [i, r] of rows.entries()) {
    if (i === rows.length - 1) out.push(widths.map((w) => "-".repeat(w)).join("  "));
    out.push(line(r));
  }
  for (const s of report.scenarios) {
    const missing = [
      ...(s.score?.missingIocs.map((v) => `IOC ${v}`) ?? []),
      ...(s.score?.missingEvidence.map((e) => `evidence ${e}`) ?? []),
      ...(s.error ? [`error: ${s.error}`] : []),
    ];
    if (missing.length) out.push(`  ${s.scenario}: missing ${missing.join(", ")}`);
  }
  out.push("", `Planning (the design's metrics over these ${report.scenarios.length} investigations):`);
  out.push(...planningMetricLines(report.planning));
  return out;
}

/** `ferret eval`: every scenario, scored, on the Firestore and Pub/Sub emulators it starts. */
export async function evalCommand(
  dir: string,
  options: EvalCommandOptions,
  printer: Printer,
): Promise<EvalReport> {
  const emulators = await startEmulators({
    projectId: "ferret-eval",
    logDir: join(tmpdir(), "ferret-eval-emulators", String(process.pid)),
  });
  Object.assign(process.env, emulators.env);
  try {
    const scenarios = await runEval({
      scenariosDir: dir,
      model: options.model,
      projectId: `ferret-eval-${Date.now()}`,
      logger: createLogger({ minSeverity: "ERROR" }),
      onScenario: (s) => {
        if (!options.json) {
          printer.line(
            `${s.score?.verdictRight ? "✓" : "✗"} ${s.scenario}: ${s.score?.verdict ?? s.status} (expected ${s.expected})`,
          );
        }
      },
    });
    const report: EvalReport = {
      scenarios,
      totals: summarize(scenarios),
      planning: planningMetricsOf(scenarios.flatMap((s) => s.planning)),
    };
    if (options.json) printer.line(JSON.stringify(report, null, 2));
    else for (const l of ["", ...renderTable(report)]) printer.line(l);
    return report;
  } finally {
    await emulators.stop();
  }
}

import { driveInvestigation } from "../../functions/src/app/driver.js";
import { DEFAULT_PRICES } from "../../functions/src/config/model-settings.js";
import type { AgentPolicy } from "../../functions/src/domain/policy.js";
import { estimateCostUsd } from "../../functions/src/model/cost.js";
import { DEFAULT_GEMINI_MODEL } from "../../functions/src/model/gemini-options.js";
import { metered } from "../../functions/src/model/metered.js";
import { createOfflineModel } from "../../functions/src/model/offline/index.js";
import type { EventBus } from "../../functions/src/ports/event-bus.js";
import { freshProject } from "../lib/emulators.js";
import type { BenchScenario } from "../lib/scenarios.js";
import { ratio } from "../lib/stats.js";
import { LatencyModel } from "../model/latency-model.js";
import { criticalPath, waveDepth } from "./critical-path.js";
import { scenarioDeps } from "./deps.js";

export type ConfigName = "ferret" | "baseline";

/** ferret's defaults, and the sequential plan → (execute → reflect)* → conclude loop. */
export const POLICIES: Record<ConfigName, Partial<AgentPolicy>> = {
  ferret: {},
  baseline: { maxParallelSteps: 1, reflection: "every_step" },
};

export interface AgentRun {
  scenario: string;
  config: ConfigName;
  status: string;
  verdict: string | null;
  /** Concluded with a verdict expected.json accepts. */
  correct: boolean;
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  /**
   * What these tokens would cost on the default Gemini model at list price (the bench's model
   * is offline, so this is a what-if, not a bill; no cached or thinking tokens are assumed).
   */
  estimatedUsd: number;
  callsByRole: Record<string, number>;
  wallMs: number;
  stepsExecuted: number;
  waves: number;
  /** Longest chain of dependent model calls in this run's own trace. */
  criticalPath: { calls: number; ms: number; chain: string[] };
  /** Sequential model calls under the schedule actually run (waves). */
  scheduleDepthCalls: number;
}

export interface AgentRow {
  scenario: string;
  ferret: AgentRun;
  baseline: AgentRun;
  agree: boolean;
  /** baseline / ferret. */
  ratios: { llmCalls: number; tokens: number; wallMs: number };
  /** ferret's wall time against its critical-path bound. */
  toCriticalPath: { boundMs: number; distanceMs: number; ratio: number };
}

export interface AgentSection {
  latencyMs: number;
  policies: Record<ConfigName, Partial<AgentPolicy>>;
  rows: AgentRow[];
  totals: {
    ferret: Totals;
    baseline: Totals;
    ratios: AgentRow["ratios"];
    criticalPathMs: number;
    allAgree: boolean;
    ferretAllCorrect: boolean;
    baselineAllCorrect: boolean;
  };
}

interface Totals {
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  estimatedUsd: number;
  wallMs: number;
}

export interface AgentOptions {
  scenarios: readonly BenchScenario[];
  latencyMs: number;
  bus: EventBus;
  progress: (line: string) => void;
}

export async function runOnce(
  scenario: BenchScenario,
  config: ConfigName,
  latencyMs: number,
  bus: EventBus,
): Promise<AgentRun> {
  const timed = new LatencyModel(createOfflineModel(), { generateMs: latencyMs });
  const meter = metered(timed);
  const sd = await scenarioDeps({
    scenario,
    policy: POLICIES[config],
    model: meter.model,
    projectId: freshProject(`agent-${config}`),
    bus,
  });
  try {
    const id = await sd.ingest(scenario.notification);
    const started = performance.now();
    const inv = await driveInvestigation(id, sd.deps);
    const wallMs = Math.round(performance.now() - started);
    const [results, reflections] = await Promise.all([
      sd.deps.store.listStepResults(id),
      sd.deps.store.listReflections(id),
    ]);
    const callsByRole = Object.fromEntries(
      ["planner", "executor", "reflector", "concluder"].map((role) => [
        role,
        timed.calls.filter((c) => c.role === role).length,
      ]),
    );
    const trace = {
      plan: inv.plan ?? { objective: "", successCriteria: [], constraints: [], steps: [], revision: 0 },
      results,
      reflections,
      plannerCalls: callsByRole.planner ?? 0,
      concluderCalls: callsByRole.concluder ?? 0,
    };
    const cp = criticalPath(trace);
    const totals = meter.totals();
    const verdict = inv.conclusion?.verdict ?? null;
    return {
      scenario: scenario.name,
      config,
      status: inv.status,
      verdict,
      correct: inv.status === "concluded" && verdict !== null && scenario.acceptable.includes(verdict),
      llmCalls: totals.calls,
      inputTokens: totals.usage.inputTokens,
      outputTokens: totals.usage.outputTokens,
      estimatedUsd: estimateCostUsd(totals.usage, DEFAULT_PRICES[DEFAULT_GEMINI_MODEL]) ?? 0,
      callsByRole,
      wallMs,
      stepsExecuted: inv.counters.stepsExecuted,
      waves: inv.counters.waves,
      criticalPath: { calls: cp.calls, ms: cp.calls * latencyMs, chain: cp.chain },
      scheduleDepthCalls: waveDepth(trace),
    };
  } finally {
    await sd.close();
  }
}

/** Section 1: each scenario under ferret's policy and under the sequential baseline. */
export async function compareOrchestrations(options: AgentOptions): Promise<AgentSection> {
  const first = options.scenarios[0];
  // Warm-up (not reported): JIT, gRPC channels, DuckDB's first load.
  if (first) await runOnce(first, "ferret", 0, options.bus);
  const rows: AgentRow[] = [];
  for (const scenario of options.scenarios) {
    const ferret = await runOnce(scenario, "ferret", options.latencyMs, options.bus);
    options.progress(`  ${scenario.name}: ferret ${ferret.wallMs} ms, ${ferret.llmCalls} calls`);
    const baseline = await runOnce(scenario, "baseline", options.latencyMs, options.bus);
    options.progress(`  ${scenario.name}: baseline ${baseline.wallMs} ms, ${baseline.llmCalls} calls`);
    rows.push({
      scenario: scenario.name,
      ferret,
      baseline,
      agree: ferret.verdict === baseline.verdict,
      ratios: ratiosOf(baseline, ferret),
      toCriticalPath: {
        boundMs: ferret.criticalPath.ms,
        distanceMs: ferret.wallMs - ferret.criticalPath.ms,
        ratio: ratio(ferret.wallMs, ferret.criticalPath.ms),
      },
    });
  }
  const sum = (config: ConfigName): Totals => ({
    llmCalls: rows.reduce((s, r) => s + r[config].llmCalls, 0),
    inputTokens: rows.reduce((s, r) => s + r[config].inputTokens, 0),
    outputTokens: rows.reduce((s, r) => s + r[config].outputTokens, 0),
    estimatedUsd: rows.reduce((s, r) => s + r[config].estimatedUsd, 0),
    wallMs: rows.reduce((s, r) => s + r[config].wallMs, 0),
  });
  const ferret = sum("ferret");
  const baseline = sum("baseline");
  return {
    latencyMs: options.latencyMs,
    policies: POLICIES,
    rows,
    totals: {
      ferret,
      baseline,
      ratios: ratiosOf(baseline, ferret),
      criticalPathMs: rows.reduce((s, r) => s + r.ferret.criticalPath.ms, 0),
      allAgree: rows.every((r) => r.agree),
      ferretAllCorrect: rows.every((r) => r.ferret.correct),
      baselineAllCorrect: rows.every((r) => r.baseline.correct),
    },
  };
}

function ratiosOf(baseline: Totals, ferret: Totals): AgentRow["ratios"] {
  return {
    llmCalls: ratio(baseline.llmCalls, ferret.llmCalls),
    tokens: ratio(baseline.inputTokens + baseline.outputTokens, ferret.inputTokens + ferret.outputTokens),
    wallMs: ratio(baseline.wallMs, ferret.wallMs),
  };
}

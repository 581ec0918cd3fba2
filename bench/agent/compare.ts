import { DEFAULT_PRICES } from "../../functions/src/config/model-settings.js";
import type { AgentPolicy } from "../../functions/src/domain/policy.js";
import { judgeVerdict } from "../../functions/src/eval/score.js";
import { investigateInProcess } from "../../functions/src/local/in-process-workflow.js";
import { estimateCostUsd } from "../../functions/src/model/cost.js";
import { DEFAULT_GEMINI_MODEL } from "../../functions/src/model/gemini-options.js";
import { metered } from "../../functions/src/model/metered.js";
import { createOfflineModel } from "../../functions/src/offline-model/index.js";
import type { EventBus } from "../../functions/src/ports/event-bus.js";
import { decisiveCoverage, shippedRunbooks } from "../lib/decisive.js";
import { freshProject } from "../lib/emulators.js";
import type { BenchScenario } from "../lib/scenarios.js";
import { ratio } from "../lib/stats.js";
import { LatencyModel } from "../model/latency-model.js";
import { REACT_MAX_TURNS, type ReactRun, runReactOnce } from "../react/run.js";
import { criticalPath, waveDepth } from "./critical-path.js";
import { scenarioDeps } from "./deps.js";
import {
  checkTargets,
  type Measured,
  type Ratios,
  type TargetCheck,
  type Totals,
  totalsOf,
  verdictsAgree,
  vsBaseline,
} from "./summary.js";

/** The runbooks the decisive-evidence matcher reads (what each answer is about). */
const RUNBOOKS = shippedRunbooks();

export type { ConfigName } from "./summary.js";

/**
 * The two workflow columns differ only in configuration: ferret's defaults, and the sequential
 * plan → (execute → reflect)* → conclude loop. Both run the deployed YAML.
 */
export const POLICIES: Record<WorkflowConfig, Partial<AgentPolicy>> = {
  ferret: {},
  // The naive sequential loop: one step at a time, a reflection after each, and every step's
  // calls chosen and read by the executor model.
  baseline: { maxParallelSteps: 1, reflection: "every_step", plannedCalls: "executor" },
};

export type WorkflowConfig = "ferret" | "baseline";

export interface AgentRun extends Measured {
  config: WorkflowConfig;
  callsByRole: Record<string, number>;
  /** Of llmCalls, the repair calls (an answer that broke its schema asked again). */
  repairCalls: number;
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
  react: ReactRun;
  /** The three columns reached the same verdict. */
  agree: boolean;
  /** Each column divided by the baseline. */
  vsBaseline: { ferret: Ratios; react: Ratios };
  /** ferret's wall time against its critical-path bound. */
  toCriticalPath: { boundMs: number; distanceMs: number; ratio: number };
}

export interface AgentSection {
  /** Scenarios whose run threw: reported by name and reason, the others still measured. */
  failures: { scenario: string; error: string }[];
  latencyMs: number;
  policies: Record<WorkflowConfig, Partial<AgentPolicy>>;
  react: { maxTurns: number };
  rows: AgentRow[];
  totals: {
    ferret: Totals;
    baseline: Totals;
    react: Totals;
    vsBaseline: { ferret: Ratios; react: Ratios };
    /** ferret against issue 18's targets (≤ 0.6× the baseline's calls, tokens, wall). */
    targets: TargetCheck[];
    criticalPathMs: number;
    allAgree: boolean;
    ferretAllCorrect: boolean;
    baselineAllCorrect: boolean;
    reactAllCorrect: boolean;
  };
}

export interface AgentOptions {
  scenarios: readonly BenchScenario[];
  latencyMs: number;
  bus: EventBus;
  progress: (line: string) => void;
}

/** One scenario through the deployed workflow, in this process, under one configuration. */
export async function runOnce(
  scenario: BenchScenario,
  config: WorkflowConfig,
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
    const inv = await investigateInProcess(id, sd.deps);
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
    // The verdict itself (a held draft's too), so the three columns compare like with like.
    const verdict = inv.conclusion?.verdict ?? null;
    return {
      scenario: scenario.name,
      config,
      status: inv.status,
      verdict,
      correct: judgeVerdict(inv, scenario.acceptable).right,
      llmCalls: totals.calls,
      inputTokens: totals.usage.inputTokens,
      outputTokens: totals.usage.outputTokens,
      estimatedUsd: estimateCostUsd(totals.usage, DEFAULT_PRICES[DEFAULT_GEMINI_MODEL]) ?? 0,
      callsByRole,
      repairCalls: timed.calls.filter((c) => c.repair).length,
      wallMs,
      decisive: decisiveCoverage(
        scenario.probes,
        results.flatMap((r) => r.toolCalls),
        RUNBOOKS,
      ),
      stepsExecuted: inv.counters.stepsExecuted,
      waves: inv.counters.waves,
      criticalPath: { calls: cp.calls, ms: cp.calls * latencyMs, chain: cp.chain },
      scheduleDepthCalls: waveDepth(trace),
    };
  } finally {
    await sd.close();
  }
}

/** Section 1: each scenario under ferret's configuration, the sequential baseline's, and the ReAct loop. */
export async function compareOrchestrations(options: AgentOptions): Promise<AgentSection> {
  const first = options.scenarios[0];
  // Warm-up (not reported): JIT, gRPC channels, DuckDB's first load.
  if (first) {
    await runOnce(first, "ferret", 0, options.bus);
    await runReactOnce(first, 0, options.bus);
  }
  const rows: AgentRow[] = [];
  const failures: AgentSection["failures"] = [];
  for (const scenario of options.scenarios) {
    try {
      rows.push(await compareOne(scenario, options));
    } catch (error) {
      // One scenario's failure never empties the section: it is reported, the rest measured.
      const message = error instanceof Error ? error.message : String(error);
      options.progress(`  ${scenario.name}: FAILED — ${message}`);
      failures.push({ scenario: scenario.name, error: message.slice(0, 500) });
    }
  }
  return summarize(rows, failures, options);
}

async function compareOne(scenario: BenchScenario, options: AgentOptions): Promise<AgentRow> {
  {
    const ferret = await runOnce(scenario, "ferret", options.latencyMs, options.bus);
    options.progress(`  ${scenario.name}: ferret ${ferret.wallMs} ms, ${ferret.llmCalls} calls`);
    const baseline = await runOnce(scenario, "baseline", options.latencyMs, options.bus);
    options.progress(`  ${scenario.name}: baseline ${baseline.wallMs} ms, ${baseline.llmCalls} calls`);
    const react = await runReactOnce(scenario, options.latencyMs, options.bus);
    options.progress(`  ${scenario.name}: react ${react.wallMs} ms, ${react.llmCalls} calls`);
    return {
      scenario: scenario.name,
      ferret,
      baseline,
      react,
      agree: verdictsAgree([ferret, baseline, react]),
      vsBaseline: { ferret: vsBaseline(ferret, baseline), react: vsBaseline(react, baseline) },
      toCriticalPath: {
        boundMs: ferret.criticalPath.ms,
        distanceMs: ferret.wallMs - ferret.criticalPath.ms,
        ratio: ratio(ferret.wallMs, ferret.criticalPath.ms),
      },
    };
  }
}

function summarize(
  rows: AgentRow[],
  failures: AgentSection["failures"],
  options: AgentOptions,
): AgentSection {
  const ferret = totalsOf(rows.map((r) => r.ferret));
  const baseline = totalsOf(rows.map((r) => r.baseline));
  const react = totalsOf(rows.map((r) => r.react));
  const ferretVsBaseline = vsBaseline(ferret, baseline);
  return {
    failures,
    latencyMs: options.latencyMs,
    policies: POLICIES,
    react: { maxTurns: REACT_MAX_TURNS },
    rows,
    totals: {
      ferret,
      baseline,
      react,
      vsBaseline: { ferret: ferretVsBaseline, react: vsBaseline(react, baseline) },
      targets: checkTargets(ferretVsBaseline),
      criticalPathMs: rows.reduce((s, r) => s + r.ferret.criticalPath.ms, 0),
      allAgree: rows.every((r) => r.agree),
      ferretAllCorrect: failures.length === 0 && rows.every((r) => r.ferret.correct),
      baselineAllCorrect: rows.every((r) => r.baseline.correct),
      reactAllCorrect: rows.every((r) => r.react.correct),
    },
  };
}

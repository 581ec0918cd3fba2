import { DEFAULT_PRICES } from "../../functions/src/config/model-settings.js";
import { normalizeNotification, parseNotification } from "../../functions/src/domain/finding/finding.js";
import { estimateCostUsd } from "../../functions/src/model/cost.js";
import { DEFAULT_GEMINI_MODEL } from "../../functions/src/model/gemini-options.js";
import { metered } from "../../functions/src/model/metered.js";
import type { EventBus } from "../../functions/src/ports/event-bus.js";
import { benchLogger, scenarioDeps } from "../agent/deps.js";
import type { Measured } from "../agent/summary.js";
import { decisiveCoverage, shippedRunbooks } from "../lib/decisive.js";
import { freshProject } from "../lib/emulators.js";
import type { BenchScenario } from "../lib/scenarios.js";
import { LatencyModel } from "../model/latency-model.js";
import { runReact } from "./loop.js";
import { OfflineReactBrain } from "./offline-brain.js";

/** The runbooks the decisive-evidence matcher reads (what each answer is about). */
const RUNBOOKS = shippedRunbooks();

/** Room for every playbook line's two rounds plus the answer; a run that needs more fails visibly. */
export const REACT_MAX_TURNS = 25;

export interface ReactRun extends Measured {
  config: "react";
  /** Tool calls the loop ran. */
  toolCalls: number;
  /** Why the loop ended without a verdict. */
  reason?: string;
}

/**
 * One scenario through the ReAct loop with the same tools (DuckDB over the scenario's logs,
 * its STIX bundle, built by the same scenarioDeps as the workflow columns), the same
 * configuration caps and the same simulated latency per model call.
 */
export async function runReactOnce(
  scenario: BenchScenario,
  latencyMs: number,
  bus: EventBus,
): Promise<ReactRun> {
  const brain = new OfflineReactBrain();
  const timed = new LatencyModel(brain, { generateMs: latencyMs });
  const meter = metered(timed);
  const sd = await scenarioDeps({
    scenario,
    policy: {},
    model: meter.model,
    projectId: freshProject("react"),
    bus,
  });
  try {
    const finding = normalizeNotification(parseNotification(scenario.notification));
    const started = performance.now();
    const outcome = await runReact({
      investigationId: `react-${scenario.name}`,
      finding,
      model: meter.model,
      toolbox: sd.deps.toolbox,
      tables: sd.deps.tables.map((t) => t.name),
      maxTurns: REACT_MAX_TURNS,
      maxSteps: sd.deps.config.agent.maxSteps,
      maxIterationsPerLine: sd.deps.config.agent.maxStepIterations,
      logger: benchLogger,
      onTurn: (context) => brain.observe(context),
    });
    const wallMs = Math.round(performance.now() - started);
    const totals = meter.totals();
    const verdict = outcome.conclusion?.verdict ?? null;
    return {
      scenario: scenario.name,
      config: "react",
      status: outcome.status,
      verdict,
      correct: outcome.status === "concluded" && verdict !== null && scenario.acceptable.includes(verdict),
      llmCalls: totals.calls,
      inputTokens: totals.usage.inputTokens,
      outputTokens: totals.usage.outputTokens,
      estimatedUsd: estimateCostUsd(totals.usage, DEFAULT_PRICES[DEFAULT_GEMINI_MODEL]) ?? 0,
      wallMs,
      decisive: decisiveCoverage(scenario.probes, outcome.toolCalls, RUNBOOKS),
      toolCalls: outcome.toolCalls.length,
      ...(outcome.reason ? { reason: outcome.reason } : {}),
    };
  } finally {
    await sd.close();
  }
}

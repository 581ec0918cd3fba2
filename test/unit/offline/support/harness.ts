import { askConcluder } from "../../../../functions/src/agent/concluder.js";
import { askPlanner } from "../../../../functions/src/agent/planner.js";
import { askReflector } from "../../../../functions/src/agent/reflector.js";
import { askStepExecutor } from "../../../../functions/src/agent/step-executor.js";
import type { Conclusion } from "../../../../functions/src/domain/conclusion.js";
import type { Finding } from "../../../../functions/src/domain/finding/finding.js";
import type { TableCoverage } from "../../../../functions/src/domain/log-coverage.js";
import { readySteps } from "../../../../functions/src/domain/next-action.js";
import type { Plan } from "../../../../functions/src/domain/plan.js";
import { applyPlanUpdates } from "../../../../functions/src/domain/plan-rules.js";
import type { Reflection } from "../../../../functions/src/domain/reflection.js";
import { type StepResult, ZERO_USAGE } from "../../../../functions/src/domain/results.js";
import type { Model } from "../../../../functions/src/model/port.js";
import { createOfflineModel } from "../../../../functions/src/offline-model/index.js";
import { silentLogger } from "../../../../functions/src/platform/logger.js";
import { LOG_TABLES as LOG_SCHEMA_TABLES } from "../../../../functions/src/sql/log-schema.js";
import type { ToolboxRegistry } from "../../../../functions/src/tools/toolbox.js";
import { ToolBox } from "../../../../functions/src/tools/toolbox.js";

export interface Run {
  plan: Plan;
  initialPlan: Plan;
  results: StepResult[];
  reflections: Reflection[];
  conclusion: Conclusion;
}

const NOW = new Date("2025-03-05T00:00:00.000Z");

/** What runPlanner reads before planning: each table's time span, from log_tables when offered. */
async function readCoverage(toolbox: ToolBox, finding: Finding): Promise<TableCoverage[] | undefined> {
  if (!toolbox.names().includes("log_tables")) return undefined;
  const out = await toolbox.run("log_tables", { coverage: true }, ["log_tables"], {
    investigationId: "inv-offline",
    finding,
    logger: silentLogger,
  });
  const data = out.data as { coverage?: TableCoverage[] } | null;
  return out.ok ? data?.coverage : undefined;
}

/**
 * The whole plan → execute → reflect → conclude loop with the real agent roles, the
 * offline model and a registry of real tools: what the demo and CI run, minus storage.
 */
export async function investigate(
  finding: Finding,
  registry: ToolboxRegistry,
  options: { maxSteps?: number; maxWaves?: number; model?: Model } = {},
): Promise<Run> {
  const model = options.model ?? createOfflineModel();
  const toolbox = new ToolBox(registry, () => true);
  const maxSteps = options.maxSteps ?? 10;
  const tools = toolbox.available();
  const coverage = await readCoverage(toolbox, finding);
  const { plan: initialPlan } = await askPlanner({
    ...(coverage ? { coverage } : {}),
    investigationId: "inv-offline",
    finding,
    model,
    tools,
    // As app/planner.ts plans: with the tools' parameter schemas, so the planner may fix calls.
    declarations: toolbox.declarationsFor(toolbox.names()),
    tables: LOG_SCHEMA_TABLES.map((t) => ({ name: t.name, description: t.description })),
    maxSteps,
  });
  let plan = initialPlan;
  const results: StepResult[] = [];
  const reflections: Reflection[] = [];
  for (let wave = 0; wave < (options.maxWaves ?? 6); wave++) {
    const ready = readySteps(plan);
    if (ready.length === 0) break;
    const finished = await Promise.all(
      ready.map((step) =>
        askStepExecutor({
          investigationId: "inv-offline",
          finding,
          plan,
          step,
          priorResults: results,
          model,
          toolbox,
          maxIterations: 6,
          logger: silentLogger,
          now: () => NOW,
        }),
      ),
    );
    results.push(...finished);
    const status = new Map(finished.map((r) => [r.stepId, r.status]));
    plan = {
      ...plan,
      steps: plan.steps.map((s) => (status.has(s.id) ? { ...s, status: status.get(s.id) ?? s.status } : s)),
    };
    const { draft, usage } = await askReflector({
      investigationId: "inv-offline",
      finding,
      plan,
      results,
      justFinished: finished.map((r) => r.stepId),
      model,
      tools: tools.map((t) => t.name),
      actingTools: toolbox.actingNames(),
      maxSteps,
      revisionsLeft: 3 - plan.revision,
    });
    const outcome = applyPlanUpdates(plan, draft.updates, {
      allowedTools: tools.map((t) => t.name),
      maxSteps,
      maxRevisions: 3,
    });
    plan = outcome.plan;
    reflections.push({
      ...draft,
      wave,
      afterSteps: finished.map((r) => r.stepId),
      applied: outcome.applied,
      refused: outcome.refused,
      skipped: false,
      usage: usage ?? ZERO_USAGE,
      model: model.name,
      createdAt: NOW.toISOString(),
    });
    if (draft.achieved) break;
  }
  const { conclusion } = await askConcluder({
    investigationId: "inv-offline",
    finding,
    plan,
    results,
    reflections,
    model,
    mode: "conclude",
    reason: "done",
    now: NOW,
  });
  return { plan, initialPlan, results, reflections, conclusion };
}

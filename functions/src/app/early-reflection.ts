import { errorMessage } from "../domain/errors.js";
import { TERMINAL_STATUSES } from "../domain/investigation.js";
import { applyPlanUpdates } from "../domain/plan-rules.js";
import type { Reflection } from "../domain/reflection.js";
import type { AppDeps } from "./deps.js";
import { publishEvents } from "./publish.js";
import { reflectAndApply, reflectionMessage } from "./reflection-round.js";
import { modelFields, requirePlan, withUsage } from "./roles-common.js";

/**
 * Reflects as soon as a decisive step has finished, before its wave ends (the caller checks
 * `earlyReflectionDue`). It reads every result recorded so far and may cancel the rest of
 * the plan, running steps included; those stop before their next model round.
 *
 * It is an optimisation, not a step of the workflow: stored once per decisive step, and a
 * failure is logged and swallowed, since the wave's own reflection covers the same ground.
 */
export async function reflectEarly(id: string, stepId: string, deps: AppDeps): Promise<void> {
  try {
    await reflect(id, stepId, deps);
  } catch (error) {
    deps.logger.warn("early reflection failed; the wave's reflection will cover it", {
      investigationId: id,
      stepId,
      error: errorMessage(error),
    });
  }
}

async function reflect(id: string, stepId: string, deps: AppDeps): Promise<void> {
  const inv = await deps.store.require(id);
  if (TERMINAL_STATUSES.includes(inv.status)) return;
  const results = await deps.store.listStepResults(id);
  const { draft, usage, outcome, rules } = await reflectAndApply(inv, results, [stepId], deps);
  const reflection: Reflection = {
    ...draft,
    wave: inv.counters.waves + 1,
    afterSteps: results.map((r) => r.stepId),
    applied: outcome.applied,
    refused: outcome.refused,
    skipped: false,
    early: { stepId },
    usage,
    model: deps.model.name,
    createdAt: deps.now().toISOString(),
  };
  const recorded = await deps.store.recordReflection(id, reflection, (current) => {
    const base = withUsage(current, usage, deps.now());
    // Applied to the plan as it is now: a sibling may have finished since it was read.
    const changed = applyPlanUpdates(requirePlan(current), draft.updates, rules).plan;
    return {
      investigation: {
        ...base,
        ...modelFields(current, deps),
        plan: changed,
        counters: { ...base.counters, revisions: changed.revision },
      },
      events: [{ type: "reflected", stepId, message: reflectionMessage(reflection) }],
    };
  });
  await publishEvents(deps.bus, recorded.events);
}

/**
 * What the wave's reflection may take from early ones: the latest that judged the objective
 * achieved (the wave then concludes without reflecting again: the concluder reads every
 * result, those that came in later included), else whether early reflections already read
 * every result of the wave.
 */
export function earlyCoverage(
  reflections: readonly Reflection[],
  waveSteps: readonly string[],
  finished: readonly string[],
): { achieved?: Reflection; coversWave: boolean; latest?: Reflection } {
  const early = reflections.filter((r) => r.early);
  const achieved = early.filter((r) => r.achieved).at(-1);
  const read = new Set(early.flatMap((r) => r.afterSteps));
  const latest = early.at(-1);
  const coversWave =
    early.length > 0 && waveSteps.filter((s) => finished.includes(s)).every((s) => read.has(s));
  return { ...(achieved ? { achieved } : {}), coversWave, ...(latest ? { latest } : {}) };
}

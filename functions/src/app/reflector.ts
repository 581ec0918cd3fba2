import type { NextAction } from "../domain/next-action.js";
import { applyPlanUpdates } from "../domain/plan-rules.js";
import type { Reflection } from "../domain/reflection.js";
import { annotateActiveSpan } from "../platform/tracing.js";
import type { AppDeps } from "./deps.js";
import { earlyCoverage } from "./early-reflection.js";
import { publishEvents } from "./publish.js";
import { reflectAndApply, reflectionMessage } from "./reflection-round.js";
import { decide, modelFields, republish, requirePlan, terminalAction, withUsage } from "./roles-common.js";

/**
 * Called once per finished wave: reflects when the policy says so (once per wave, stored
 * under the wave number), applies the plan updates, and returns the next action.
 */
export async function runReflector(
  id: string,
  wave: number,
  stepIds: readonly string[],
  deps: AppDeps,
): Promise<NextAction> {
  // The reflector is called after every wave; most calls decide without evaluating anything,
  // and the trace says which (overwritten below when this call records a reflection).
  annotateActiveSpan({ "ferret.reflection": "not_evaluated", "ferret.wave": wave });
  const inv = await deps.store.require(id);
  const done = terminalAction(inv);
  if (done) return done;
  const stored = await deps.store.getReflection(id, wave);
  if (stored) {
    await republish(deps, id, (e) => e.type === "reflected");
    return decide(inv, deps, { lastReflection: reflectionSignal(stored) });
  }
  const [results, reflections] = await Promise.all([
    deps.store.listStepResults(id),
    deps.store.listReflections(id),
  ]);
  const waveResults = results.filter((r) => stepIds.includes(r.stepId));
  const first = decide(inv, deps, {
    finishedWave: {
      stepIds,
      anyFailed: waveResults.some((r) => r.status === "failed"),
      allAnswered:
        waveResults.length === stepIds.length && waveResults.every((r) => r.outcome === "answered"),
    },
  });
  if (first.kind !== "reflect") return first;
  // A reflection already ran on this wave's decisive result: no second one to reach the same answer.
  const early = earlyCoverage(
    reflections,
    stepIds,
    waveResults.map((r) => r.stepId),
  );
  const covering = early.achieved ?? (early.coversWave ? early.latest : undefined);
  if (covering) return decide(inv, deps, { lastReflection: reflectionSignal(covering) });

  const { draft, usage, outcome, rules } = await reflectAndApply(inv, results, stepIds, deps);
  const reflection: Reflection = {
    ...draft,
    wave,
    afterSteps: [...stepIds],
    applied: outcome.applied,
    refused: outcome.refused,
    skipped: false,
    usage,
    model: deps.model.name,
    createdAt: deps.now().toISOString(),
  };
  const recorded = await deps.store.recordReflection(id, reflection, (current) => {
    const base = withUsage(current, usage, deps.now());
    const changed =
      outcome.applied.length > 0
        ? applyPlanUpdates(requirePlan(current), draft.updates, rules).plan
        : requirePlan(current);
    return {
      investigation: {
        ...base,
        ...modelFields(current, deps),
        plan: changed,
        counters: { ...base.counters, waves: base.counters.waves + 1, revisions: changed.revision },
      },
      events: [{ type: "reflected", message: reflectionMessage(reflection) }],
    };
  });
  annotateActiveSpan({ "ferret.reflection": "evaluated" });
  await publishEvents(deps.bus, recorded.events);
  return decide(recorded.investigation, deps, { lastReflection: reflectionSignal(recorded.reflection) });
}
function reflectionSignal(r: Reflection): { achieved: boolean; refusedForBudget: number } {
  return {
    achieved: r.achieved,
    refusedForBudget: r.refused.filter((x) => x.reason.includes("revision budget")).length,
  };
}

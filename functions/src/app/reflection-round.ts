import { askReflector } from "../agent/reflector.js";
import type { Investigation } from "../domain/investigation.js";
import { applyPlanUpdates } from "../domain/plan-rules.js";
import type { Reflection } from "../domain/reflection.js";
import type { StepResult } from "../domain/results.js";
import type { AppDeps } from "./deps.js";
import { offlineOnBadOutput, requirePlan } from "./roles-common.js";

/*
 * One reflection round, shared by the wave's reflection (app/reflector.ts) and an early one
 * (app/early-reflection.ts); its own module so neither of those imports the other's caller.
 */

export function reflectionMessage(r: Reflection): string {
  const changes = r.applied.map((u) =>
    u.op === "add" ? `+${u.step.id}` : u.op === "cancel" ? `-${u.id}` : `~${u.id}`,
  );
  return `${r.achieved ? "Objective achieved. " : ""}${r.insights[0] ?? r.rationale}${changes.length ? ` (plan: ${changes.join(" ")})` : ""}`;
}

/**
 * Asks the reflector about the results so far and applies its updates to the plan as read:
 * the wave's reflection and an early one differ only in what they record.
 */
export async function reflectAndApply(
  inv: Investigation,
  results: StepResult[],
  justFinished: readonly string[],
  deps: AppDeps,
) {
  const plan = requirePlan(inv);
  const rules = {
    allowedTools: deps.toolbox.names(),
    maxSteps: deps.config.agent.maxSteps,
    maxRevisions: deps.config.agent.maxRevisions,
  };
  const { draft, usage } = await offlineOnBadOutput(deps, "reflector", () =>
    askReflector({
      investigationId: inv.id,
      finding: inv.finding,
      plan,
      results,
      justFinished: [...justFinished],
      model: deps.model,
      tools: rules.allowedTools,
      actingTools: deps.toolbox.actingNames(),
      declarations: deps.toolbox.declarationsFor(rules.allowedTools),
      maxSteps: rules.maxSteps,
      revisionsLeft: Math.max(0, rules.maxRevisions - plan.revision),
    }),
  );
  return { draft, usage, outcome: applyPlanUpdates(plan, draft.updates, rules), rules };
}

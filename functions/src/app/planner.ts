import type { AnalystLesson } from "../agent/contexts.js";
import { askPlanner } from "../agent/planner.js";
import { errorMessage } from "../domain/errors.js";
import { type Investigation, settledVerdictField } from "../domain/investigation.js";
import type { NextAction } from "../domain/next-action.js";
import type { AppDeps } from "./deps.js";
import {
  commit,
  decide,
  modelFields,
  offlineOnBadOutput,
  republish,
  terminalAction,
  withUsage,
} from "./roles-common.js";

/** Disputed verdicts on earlier findings of the same category; a lookup failure never blocks planning. */
async function lessonsFor(investigation: Investigation, deps: AppDeps): Promise<AnalystLesson[]> {
  if (!deps.lessons) return [];
  try {
    const found = await deps.lessons.forCategory(investigation.finding.category, MAX_LESSONS);
    return found
      .filter((l) => l.investigationId !== investigation.id)
      .map((l) => ({
        investigationId: l.investigationId,
        category: l.category,
        resource: l.resource,
        ferretVerdict: l.ferretVerdict,
        analystVerdict: l.analystVerdict,
        reason: l.reason,
        disputedAt: l.createdAt,
      }));
  } catch (error) {
    deps.logger.warn("analyst lessons unavailable; planning without them", { error: errorMessage(error) });
    return [];
  }
}
const MAX_LESSONS = 5;

export async function runPlanner(id: string, deps: AppDeps): Promise<NextAction> {
  const existing = await deps.store.require(id);
  const done = terminalAction(existing);
  if (done) return done;
  if (existing.plan) {
    await republish(deps, id, (e) => e.type === "planned");
    return decide(existing, deps);
  }
  const related = await deps.store.findRelated({
    resourceName: existing.finding.resource.name,
    excludeId: id,
    limit: 5,
  });
  const lessons = await lessonsFor(existing, deps);
  const { plan, usage } = await offlineOnBadOutput(deps, "planner", () =>
    askPlanner({
      investigationId: id,
      finding: existing.finding,
      model: deps.model,
      tools: deps.toolbox.available(),
      declarations: deps.toolbox.declarationsFor(deps.toolbox.names()),
      tables: deps.tables,
      maxSteps: deps.config.agent.maxSteps,
      related: related.map((r) => ({
        id: r.id,
        category: r.finding.category,
        resource: r.finding.resource.name,
        ...settledVerdictField(r),
        createdAt: r.createdAt,
        sharedBy: "resource",
      })),
      lessons,
    }),
  );
  const now = deps.now();
  const inv = await commit(
    deps,
    await deps.store.update(id, (current) => {
      if (current.plan) return undefined; // a concurrent duplicate planned first; keep its plan
      return {
        investigation: {
          ...withUsage(current, usage, now),
          ...modelFields(current, deps),
          status: "running",
          plan,
        },
        events: [{ type: "planned", message: `Plan with ${plan.steps.length} steps: ${plan.objective}` }],
      };
    }),
  );
  return decide(inv, deps);
}

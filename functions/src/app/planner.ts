import { z } from "zod";
import type { AnalystLesson } from "../agent/briefs.js";
import { askPlanner } from "../agent/planner.js";
import { errorMessage } from "../domain/errors.js";
import { type Investigation, settledVerdictField } from "../domain/investigation.js";
import { type TableCoverage, TableCoverageSchema } from "../domain/log-coverage.js";
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

/**
 * Each log table's time span, asked of `log_tables` before planning. Unknown (undefined)
 * when the tool is not offered or does not answer: planning never waits on it.
 */
async function logCoverage(
  investigation: Investigation,
  deps: AppDeps,
): Promise<TableCoverage[] | undefined> {
  if (!deps.toolbox.names().includes(LOG_TABLES_TOOL)) return undefined;
  try {
    const out = await deps.toolbox.run(LOG_TABLES_TOOL, { coverage: true }, [LOG_TABLES_TOOL], {
      investigationId: investigation.id,
      finding: investigation.finding,
      logger: deps.logger,
    });
    const parsed = z
      .array(TableCoverageSchema)
      .safeParse((out.data as { coverage?: unknown } | null)?.coverage);
    return out.ok && parsed.success ? parsed.data : undefined;
  } catch (error) {
    deps.logger.warn("log coverage unavailable; planning without it", { error: errorMessage(error) });
    return undefined;
  }
}
const LOG_TABLES_TOOL = "log_tables";

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
  const coverage = await logCoverage(existing, deps);
  const { plan, usage } = await offlineOnBadOutput(deps, "planner", () =>
    askPlanner({
      investigationId: id,
      finding: existing.finding,
      model: deps.model,
      tools: deps.toolbox.available(),
      declarations: deps.toolbox.declarationsFor(deps.toolbox.names()),
      tables: deps.tables,
      ...(coverage ? { coverage } : {}),
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

import { catalogEntryFor } from "../domain/category-catalog.js";
import { ModelOutputError } from "../domain/errors.js";
import type { Finding } from "../domain/finding/finding.js";
import { coverageGap, type TableCoverage } from "../domain/log-coverage.js";
import { identifierLines, resolveLogIdentifiers } from "../domain/log-identifiers.js";
import { type Plan, type PlanDraft, PlanDraftSchema } from "../domain/plan.js";
import { planFromDraft, planProblems } from "../domain/plan-rules.js";
import { addUsage, type Usage, ZERO_USAGE } from "../domain/results.js";
import type { Model, ToolDeclaration } from "../model/port.js";
import { generateStructured } from "../model/structured.js";
import { type RenderedPrompt, renderPrompt } from "../prompts/render.js";
import { type AnalystLesson, briefRequest, type PlannerBrief, type RelatedInvestigation } from "./briefs.js";

export interface PlannerInput {
  investigationId: string;
  finding: Finding;
  model: Model;
  tools: readonly { name: string; description: string }[];
  /** Parameter schemas of `tools`; with them the planner may fix a step's tool calls. */
  declarations?: readonly ToolDeclaration[];
  tables: readonly { name: string; description: string }[];
  /** Each table's time span, read before planning; absent when it could not be read. */
  coverage?: readonly TableCoverage[];
  maxSteps: number;
  related?: readonly RelatedInvestigation[];
  lessons?: readonly AnalystLesson[];
}

export interface PlannerOutput {
  plan: Plan;
  usage: Usage;
}

/**
 * Asks the model for a plan and checks it against the registry and the step cap. A plan
 * that breaks those rules gets one corrected attempt with the problems spelled out;
 * a second bad plan is a ModelOutputError rather than a silently trimmed plan.
 */
export async function askPlanner(input: PlannerInput): Promise<PlannerOutput> {
  const rules = { allowedTools: input.tools.map((t) => t.name), maxSteps: input.maxSteps };
  let usage = ZERO_USAGE;
  let problems: string[] = [];
  for (let attempt = 1; attempt <= 2; attempt++) {
    const brief: PlannerBrief = {
      role: "planner",
      finding: input.finding,
      tools: input.tools.map(({ name, description }) => ({ name, description })),
      ...(input.declarations ? { declarations: [...input.declarations] } : {}),
      tables: input.tables.map(({ name, description }) => ({ name, description })),
      ...(input.coverage ? { coverage: [...input.coverage] } : {}),
      maxSteps: input.maxSteps,
      related: [...(input.related ?? [])],
      ...(input.lessons && input.lessons.length > 0 ? { lessons: [...input.lessons] } : {}),
      problems,
    };
    const answer = await generateStructured(
      input.model,
      briefRequest(brief, plannerPrompt, input.investigationId),
      PlanDraftSchema,
    );
    usage = addUsage(usage, answer.usage);
    const draft: PlanDraft = answer.value;
    problems = planProblems(draft.steps, rules);
    if (problems.length === 0) {
      const plan = planFromDraft(draft);
      return { plan: input.coverage ? { ...plan, logCoverage: [...input.coverage] } : plan, usage };
    }
  }
  throw new ModelOutputError(`the planner produced an invalid plan twice: ${problems.join("; ")}`, {
    problems,
  });
}

/** The planner's prompt, rendered from its brief alone. */
export function plannerPrompt(brief: PlannerBrief): RenderedPrompt {
  const parameters = new Map((brief.declarations ?? []).map((d) => [d.name, JSON.stringify(d.parameters)]));
  const system = renderPrompt("planner.system", {
    tools: brief.tools.map((t) => ({ ...t, parameters: parameters.get(t.name) ?? null })),
    canFixCalls: parameters.size > 0,
    tables: brief.tables,
    maxSteps: brief.maxSteps,
    eventTime: brief.finding.eventTime,
  });
  const user = renderPrompt("planner.user", {
    finding: brief.finding,
    // The identifiers the log tables use, resolved in code: which name goes in which column.
    identifiers: identifierLines(resolveLogIdentifiers(brief.finding)),
    coverage: (brief.coverage ?? []).map((c) => ({
      table: c.table,
      span: c.rows > 0 && c.first && c.last ? `${c.first} to ${c.last} (${c.rows} rows)` : "empty",
    })),
    coverageGap: coverageGap(brief.coverage, brief.finding.eventTime) ?? null,
    // ferret's own reference text, chosen by the category; null when the catalog has no entry.
    catalog: catalogEntryFor(brief.finding.category) ?? null,
    related: brief.related,
    lessons: brief.lessons ?? [],
    problems: brief.problems,
  });
  return { system, user };
}

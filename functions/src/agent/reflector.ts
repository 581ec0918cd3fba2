import type { Finding } from "../domain/finding/finding.js";
import type { Plan } from "../domain/plan.js";
import { type ReflectionDraft, ReflectionDraftSchema } from "../domain/reflection.js";
import type { StepResult, Usage } from "../domain/results.js";
import type { Model, ToolDeclaration } from "../model/port.js";
import { generateStructured } from "../model/structured.js";
import { type RenderedPrompt, renderPrompt } from "../prompts/render.js";
import { briefRequest, type ReflectorBrief } from "./briefs.js";
import { resultsForPrompt } from "./result-summary.js";

export interface ReflectorInput {
  investigationId: string;
  finding: Finding;
  plan: Plan;
  results: readonly StepResult[];
  justFinished: readonly string[];
  model: Model;
  tools: readonly string[];
  /** Of those, the tools that act; a step using them waits for a person's approval. */
  actingTools: readonly string[];
  /** The tools' parameter schemas (the planner's brief carries the same). */
  declarations?: readonly ToolDeclaration[];
  maxSteps: number;
  revisionsLeft: number;
}

export async function askReflector(input: ReflectorInput): Promise<{ draft: ReflectionDraft; usage: Usage }> {
  const brief: ReflectorBrief = {
    role: "reflector",
    finding: input.finding,
    plan: input.plan,
    results: [...input.results],
    justFinished: [...input.justFinished],
    tools: [...input.tools],
    actingTools: [...input.actingTools],
    ...(input.declarations ? { declarations: [...input.declarations] } : {}),
    maxSteps: input.maxSteps,
    revisionsLeft: input.revisionsLeft,
  };
  const answer = await generateStructured(
    input.model,
    briefRequest(brief, reflectorPrompt, input.investigationId),
    ReflectionDraftSchema,
  );
  return { draft: answer.value, usage: answer.usage };
}

/** The reflector's prompt, rendered from its brief alone. */
export function reflectorPrompt(brief: ReflectorBrief): RenderedPrompt {
  const system = renderPrompt("reflector.system", {
    tools: brief.tools,
    actingTools: brief.actingTools,
    maxSteps: brief.maxSteps,
    revisionsLeft: brief.revisionsLeft,
  });
  const user = renderPrompt("reflector.user", {
    objective: brief.plan.objective,
    successCriteria: brief.plan.successCriteria,
    steps: brief.plan.steps.map((s) => ({
      id: s.id,
      status: s.status,
      description: s.description,
      tools: s.tools,
      dependsOn: s.dependsOn,
    })),
    justFinished: brief.justFinished,
    results: resultsForPrompt(brief.results),
    finding: brief.finding,
  });
  return { system, user };
}

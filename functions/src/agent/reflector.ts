import type { Finding } from "../domain/finding.js";
import type { Plan } from "../domain/plan.js";
import { type ReflectionDraft, ReflectionDraftSchema } from "../domain/reflection.js";
import type { StepResult, Usage } from "../domain/results.js";
import type { Model } from "../model/port.js";
import { generateStructured } from "../model/structured.js";
import { renderPrompt } from "../prompts/render.js";
import type { ReflectorContext } from "./contexts.js";
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
  maxSteps: number;
  revisionsLeft: number;
}

export async function askReflector(input: ReflectorInput): Promise<{ draft: ReflectionDraft; usage: Usage }> {
  const context: ReflectorContext = {
    purpose: "reflector",
    finding: input.finding,
    plan: input.plan,
    results: [...input.results],
    justFinished: [...input.justFinished],
    tools: [...input.tools],
    maxSteps: input.maxSteps,
    revisionsLeft: input.revisionsLeft,
  };
  const system = renderPrompt("reflector.system", {
    tools: input.tools,
    actingTools: input.actingTools,
    maxSteps: input.maxSteps,
    revisionsLeft: input.revisionsLeft,
  });
  const user = renderPrompt("reflector.user", {
    objective: input.plan.objective,
    successCriteria: input.plan.successCriteria,
    steps: input.plan.steps.map((s) => ({
      id: s.id,
      status: s.status,
      description: s.description,
      tools: s.tools,
      dependsOn: s.dependsOn,
    })),
    justFinished: input.justFinished,
    results: resultsForPrompt(input.results),
    finding: input.finding,
  });
  const answer = await generateStructured(
    input.model,
    {
      purpose: "reflector",
      system,
      messages: [{ role: "user", text: user }],
      context,
      investigationId: input.investigationId,
    },
    ReflectionDraftSchema,
  );
  return { draft: answer.value, usage: answer.usage };
}

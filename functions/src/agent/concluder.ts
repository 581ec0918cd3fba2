import { type Conclusion, ConclusionDraftSchema } from "../domain/conclusion.js";
import { completeIocs, keptSeverity } from "../domain/conclusion-guards.js";
import type { Finding } from "../domain/finding/finding.js";
import type { Plan } from "../domain/plan.js";
import type { Reflection } from "../domain/reflection.js";
import type { StepResult, Usage } from "../domain/results.js";
import { OFFLINE_CONCLUDER_NOTE } from "../model/brain.js";
import type { Model } from "../model/port.js";
import { generateStructured } from "../model/structured.js";
import { type RenderedPrompt, renderPrompt } from "../prompts/render.js";
import { checkedLinks, offeredActions } from "../tools/actions/links.js";
import { briefRequest, type ConcluderBrief } from "./briefs.js";
import { resultsForPrompt } from "./result-summary.js";

export interface ConcluderInput {
  investigationId: string;
  finding: Finding;
  plan: Plan;
  results: readonly StepResult[];
  reflections: readonly Reflection[];
  model: Model;
  mode: "conclude" | "needs_human";
  reason: string;
  now: Date;
  /** Set when the configured LLM failed and the offline model took over mid-way. */
  fallbackNote?: string;
}

export async function askConcluder(input: ConcluderInput): Promise<{ conclusion: Conclusion; usage: Usage }> {
  const brief: ConcluderBrief = {
    role: "concluder",
    finding: input.finding,
    plan: input.plan,
    results: [...input.results],
    reflections: [...input.reflections],
    mode: input.mode,
    reason: input.reason,
  };
  const answer = await generateStructured(
    input.model,
    briefRequest(brief, concluderPrompt, input.investigationId),
    ConclusionDraftSchema,
  );
  const notes = [input.model.offline ? OFFLINE_CONCLUDER_NOTE : undefined, input.fallbackNote].filter(
    (n): n is string => Boolean(n),
  );
  const kept = keptSeverity(input.finding, answer.value);
  return {
    conclusion: {
      ...kept,
      iocs: completeIocs(answer.value.iocs, input.finding, input.plan, input.results),
      // A link is an approvable call: only to an offered action on a target the finding names.
      recommendedActions: checkedLinks(kept.recommendedActions, input.finding, offeredActions(input.plan)),
      producedBy: {
        model: answer.model,
        offline: input.model.offline,
        ...(notes.length ? { note: notes.join(" ") } : {}),
      },
      createdAt: input.now.toISOString(),
    },
    usage: answer.usage,
  };
}

/** The concluder's prompt, rendered from its brief alone. */
export function concluderPrompt(brief: ConcluderBrief): RenderedPrompt {
  const system = renderPrompt("concluder.system", { mode: brief.mode, reason: brief.reason });
  const user = renderPrompt("concluder.user", {
    objective: brief.plan.objective,
    finding: brief.finding,
    results: resultsForPrompt(brief.results),
    insights: brief.reflections.flatMap((r) => r.insights),
    skipped: brief.plan.steps
      .filter((s) => s.status === "cancelled" || s.status === "pending")
      .map((s) => ({ id: s.id, status: s.status, cancelReason: s.cancelReason ?? "" })),
  });
  return { system, user };
}

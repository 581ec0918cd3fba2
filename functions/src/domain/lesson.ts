import { z } from "zod";
import type { AnalystAction } from "./analyst.js";
import { VerdictSchema } from "./conclusion.js";
import type { Investigation } from "./investigation.js";

/**
 * A disputed verdict, kept for the planners of later findings of the same category. The
 * reason is the analyst's free text: the planner receives it fenced as untrusted data, and no
 * rule ever reads a verdict out of it.
 */
export const LessonSchema = z.object({
  /** The dispute's action id: one lesson per dispute however often it is delivered. */
  id: z.string().regex(/^act-[a-f0-9]{24}$/),
  category: z.string().max(200),
  resource: z.string().max(1_000),
  investigationId: z.string(),
  ferretVerdict: VerdictSchema,
  analystVerdict: VerdictSchema,
  reason: z.string().max(1_000),
  createdAt: z.iso.datetime(),
});
export type Lesson = z.infer<typeof LessonSchema>;

export function lessonFromDispute(investigation: Investigation, action: AnalystAction): Lesson | undefined {
  const ferretVerdict = investigation.conclusion?.verdict;
  if (action.kind !== "dispute" || !action.verdict || !action.reason || !ferretVerdict) return undefined;
  return {
    id: action.actionId,
    category: investigation.finding.category.slice(0, 200),
    resource: investigation.finding.resource.name.slice(0, 1_000),
    investigationId: investigation.id,
    ferretVerdict,
    analystVerdict: action.verdict,
    reason: action.reason,
    createdAt: action.at,
  };
}

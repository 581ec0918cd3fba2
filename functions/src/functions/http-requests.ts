import { z } from "zod";

/** Bodies the workflow sends to the HTTP functions. */
export const InvestigationRefSchema = z.object({ investigationId: z.string().regex(/^inv-[a-f0-9]{24}$/) });

export const StepRequestSchema = InvestigationRefSchema.extend({ stepId: z.string().min(1).max(40) });

export const AdvanceRequestSchema = InvestigationRefSchema.extend({
  wave: z.number().int().min(1).max(1_000),
  stepIds: z.array(z.string().min(1).max(40)).max(50),
});

export const FinishRequestSchema = InvestigationRefSchema.extend({
  mode: z.enum(["conclude", "needs_human", "fail"]),
  reason: z.string().max(2_000).default(""),
});

import { z } from "zod";
import { PlanUpdateSchema, StepIdSchema } from "./plan.js";
import { UsageSchema } from "./results.js";

/** The reflector model's answer. */
export const ReflectionDraftSchema = z.object({
  achieved: z.boolean(),
  insights: z.array(z.string().min(1).max(500)).max(10),
  updates: z.array(PlanUpdateSchema).max(10),
  rationale: z.string().min(1).max(2_000),
});
export type ReflectionDraft = z.infer<typeof ReflectionDraftSchema>;

export const ReflectionSchema = ReflectionDraftSchema.extend({
  wave: z.number().int().min(0),
  afterSteps: z.array(z.string()),
  /** Updates that were applied, and those refused by plan policy, with the reason. */
  applied: z.array(PlanUpdateSchema),
  refused: z.array(z.object({ update: PlanUpdateSchema, reason: z.string() })),
  skipped: z.boolean(),
  /**
   * Set when the reflection ran as soon as a decisive step finished, before its wave ended.
   * `wave` is then the wave in progress and `afterSteps` every step whose result it read.
   */
  early: z.object({ stepId: StepIdSchema }).optional(),
  usage: UsageSchema,
  model: z.string(),
  createdAt: z.iso.datetime(),
});
export type Reflection = z.infer<typeof ReflectionSchema>;

import { z } from "zod";
import { JsonObjectSchema } from "./json.js";
import { TableCoverageSchema } from "./log-coverage.js";

export const StepIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "step ids are short lowercase slugs like step1 or intel-pool-ip");

export const StepStatusSchema = z.enum(["pending", "running", "done", "failed", "cancelled"]);
export type StepStatus = z.infer<typeof StepStatusSchema>;

/**
 * A tool call the planner fixes in advance: the step runs it directly, without a step executor
 * model round. String arguments may be whole references, `{{finding.principal}}` or
 * `{{steps.<id>.ips}}`, resolved in code when the step runs (plan-refs.ts).
 */
export const FixedCallSchema = z.object({
  tool: z.string().min(1).max(64),
  args: JsonObjectSchema,
});
export type FixedCall = z.infer<typeof FixedCallSchema>;

export const MAX_FIXED_CALLS = 8;

/** What the model proposes for a step; the plan adds status and bookkeeping. */
export const StepDraftSchema = z.object({
  id: StepIdSchema,
  description: z.string().min(1).max(1_000),
  tools: z.array(z.string().min(1).max(64)).min(1).max(4),
  expected: z.string().min(1).max(500),
  dependsOn: z.array(StepIdSchema).max(10).default([]),
  /** Present when the step needs no judgment to run: these calls are its whole work. */
  calls: z.array(FixedCallSchema).min(1).max(MAX_FIXED_CALLS).optional(),
  /** The planner expects this step's result alone may settle the verdict: reflect as soon as it finishes. */
  decisive: z.boolean().optional(),
});
export type StepDraft = z.infer<typeof StepDraftSchema>;

export const StepSchema = StepDraftSchema.extend({
  status: StepStatusSchema,
  /** Plan revision that added the step (0 = the initial plan). */
  addedInRevision: z.number().int().min(0),
  cancelReason: z.string().max(500).optional(),
});
export type Step = z.infer<typeof StepSchema>;

/** The planner's answer. */
export const PlanDraftSchema = z.object({
  objective: z.string().min(1).max(1_000),
  successCriteria: z.array(z.string().min(1).max(300)).min(1).max(8),
  constraints: z.array(z.string().min(1).max(300)).max(8).default([]),
  steps: z.array(StepDraftSchema).min(1).max(30),
});
export type PlanDraft = z.infer<typeof PlanDraftSchema>;

export const PlanSchema = z.object({
  objective: z.string(),
  successCriteria: z.array(z.string()),
  constraints: z.array(z.string()),
  steps: z.array(StepSchema),
  /** Number of reflections that changed the plan. */
  revision: z.number().int().min(0),
  /**
   * The time span of each log table, read before planning (domain/log-coverage.ts); the
   * reflector and concluder read it to tell an empty answer from a window the logs never reach.
   */
  logCoverage: z.array(TableCoverageSchema).max(50).optional(),
});
export type Plan = z.infer<typeof PlanSchema>;

export const PlanUpdateSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("add"), step: StepDraftSchema }),
  z.object({
    op: z.literal("update"),
    id: StepIdSchema,
    description: z.string().min(1).max(1_000).optional(),
    tools: z.array(z.string().min(1).max(64)).min(1).max(4).optional(),
    expected: z.string().min(1).max(500).optional(),
    dependsOn: z.array(StepIdSchema).max(10).optional(),
    calls: z.array(FixedCallSchema).min(1).max(MAX_FIXED_CALLS).optional(),
  }),
  z.object({ op: z.literal("cancel"), id: StepIdSchema, reason: z.string().min(1).max(500) }),
]);
export type PlanUpdate = z.infer<typeof PlanUpdateSchema>;

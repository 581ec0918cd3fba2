import { z } from "zod";

/** Bodies the workflow sends to the HTTP functions. */
export const InvestigationRefSchema = z.object({ investigationId: z.string().regex(/^inv-[a-f0-9]{24}$/) });

export const StepRequestSchema = InvestigationRefSchema.extend({ stepId: z.string().min(1).max(40) });

export const ReflectorRequestSchema = InvestigationRefSchema.extend({
  wave: z.number().int().min(1).max(1_000),
  stepIds: z.array(z.string().min(1).max(40)).max(50),
});

export const ConcluderRequestSchema = InvestigationRefSchema.extend({
  mode: z.enum(["conclude", "needs_human", "fail"]),
  reason: z.string().max(2_000).default(""),
});

/**
 * The responder's two calls around the workflow's pause: `request` records a held call and
 * its callback URL; `settle` runs or closes it once the callback came or the wait timed out.
 */
export const ResponderRequestSchema = z.discriminatedUnion("operation", [
  InvestigationRefSchema.extend({
    operation: z.literal("request"),
    stepId: z.string().min(1).max(40),
    approvalId: z.string().regex(/^apr-[a-f0-9]{24}$/),
    callbackUrl: z.url().max(2_000),
  }),
  InvestigationRefSchema.extend({
    operation: z.literal("settle"),
    approvalId: z.string().regex(/^apr-[a-f0-9]{24}$/),
  }),
]);

/** The request body each workflow role's HTTP function accepts. */
export const WORKFLOW_REQUEST_SCHEMAS = {
  planner: InvestigationRefSchema,
  stepExecutor: StepRequestSchema,
  reflector: ReflectorRequestSchema,
  concluder: ConcluderRequestSchema,
  compressor: StepRequestSchema,
  responder: ResponderRequestSchema,
} as const;

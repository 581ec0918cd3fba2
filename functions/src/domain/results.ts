import { z } from "zod";
import { ApprovalRequestSchema, ApprovalSchema } from "./approval.js";
import { IndicatorVerdictSchema } from "./intel-verdict.js";
import { IocSchema } from "./ioc.js";
import { JsonObjectSchema, JsonValueSchema } from "./json.js";
import { StepIdSchema } from "./plan.js";

export const UsageSchema = z.object({
  llmCalls: z.number().int().min(0),
  /** Everything the provider read, cached part included (Gemini's promptTokenCount). */
  inputTokens: z.number().int().min(0),
  /** Answer plus thinking tokens: both are billed at the output rate. */
  outputTokens: z.number().int().min(0),
  /** The part of inputTokens served from Gemini's context cache (billed at the cached rate). */
  cachedInputTokens: z.number().int().min(0).optional(),
  /** The part of outputTokens spent thinking. */
  thinkingTokens: z.number().int().min(0).optional(),
  /** Estimated from the configured price table; absent when no price is known. */
  costUsd: z.number().min(0).optional(),
});
export type Usage = z.infer<typeof UsageSchema>;
export const ZERO_USAGE: Usage = { llmCalls: 0, inputTokens: 0, outputTokens: 0 };
/** What a step result records as its "model" when the plan's calls ran without one (agent/fixed-step.ts). */
export const FIXED_CALLS_MODEL = "none (planned calls)";
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    llmCalls: a.llmCalls + b.llmCalls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  // The finer counts stay absent until some call reports them, so old records read unchanged.
  const cached = optionalSum(a.cachedInputTokens, b.cachedInputTokens);
  if (cached !== undefined) sum.cachedInputTokens = cached;
  const thinking = optionalSum(a.thinkingTokens, b.thinkingTokens);
  if (thinking !== undefined) sum.thinkingTokens = thinking;
  const cost = optionalSum(a.costUsd, b.costUsd);
  if (cost !== undefined) sum.costUsd = cost;
  return sum;
}

function optionalSum(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

export const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  args: JsonObjectSchema,
  ok: z.boolean(),
  /** Short human-readable outcome; what later steps and the summary see. */
  summary: z.string(),
  /** Structured output (bounded in size by the tool). */
  data: JsonValueSchema.optional(),
  error: z.string().optional(),
  durationMs: z.number().min(0),
  /** Intel verdicts the tool's code recorded, kept whole even when `data` was cut for the prompt. */
  verdicts: z.array(IndicatorVerdictSchema).max(50).optional(),
  /** An acting call held for a person's approval: exactly what they will be asked to approve. */
  approvalRequest: ApprovalRequestSchema.optional(),
  /** The approval an acting call ran under: who approved it, and when. */
  approvedBy: ApprovalSchema.optional(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** The step executor model's final answer for a step. */
export const StepReportSchema = z.object({
  outcome: z.enum(["answered", "no_data", "failed"]),
  summary: z.string().min(1).max(2_000),
  facts: z.array(z.string().min(1).max(500)).max(20),
  iocs: z.array(IocSchema).max(50),
});
export type StepReport = z.infer<typeof StepReportSchema>;

export const StepResultSchema = z.object({
  stepId: StepIdSchema,
  status: z.enum(["done", "failed"]),
  outcome: StepReportSchema.shape.outcome,
  summary: z.string(),
  facts: z.array(z.string()),
  iocs: z.array(IocSchema),
  toolCalls: z.array(ToolCallSchema),
  iterations: z.number().int().min(0),
  error: z.string().optional(),
  usage: UsageSchema,
  model: z.string(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
});
export type StepResult = z.infer<typeof StepResultSchema>;

import { z } from "zod";
import { IocSchema } from "../domain/ioc.js";
import { ToolCallSchema, UsageSchema } from "../domain/results.js";
import { MessageSchema } from "../model/message-schema.js";

/**
 * The durable state of one step's tool-calling loop: what the model has seen so far and
 * what the tools returned. A re-run of the step resumes from it, and the compressor
 * rewrites its messages.
 */
export const StepHistorySchema = z.object({
  stepId: z.string(),
  messages: z.array(MessageSchema),
  toolCalls: z.array(ToolCallSchema),
  toolIocs: z.array(IocSchema),
  usage: UsageSchema,
  /** Tool rounds completed; the step's iteration cap counts across re-runs. */
  iterations: z.number().int().min(0),
  startedAt: z.iso.datetime(),
  compressions: z.number().int().min(0),
  /** Set when the loop stopped because the context is (nearly) full; cleared by compression. */
  pressure: z
    .object({
      reason: z.string(),
      inputTokens: z.number().int().min(0).optional(),
      at: z.iso.datetime(),
    })
    .optional(),
  /** Set when compression cannot help any more; the next run of the step fails with it. */
  exhausted: z.string().optional(),
  /** Bumped by every write; writers name the revision they read (compare-and-set). */
  revision: z.number().int().min(1),
  updatedAt: z.iso.datetime(),
});
export type StepHistory = z.infer<typeof StepHistorySchema>;
export type StepHistoryDraft = Omit<StepHistory, "revision" | "updatedAt">;

export interface StepHistoryStore {
  get(investigationId: string, stepId: string): Promise<StepHistory | undefined>;
  /**
   * Stores `history` as revision `expectedRevision + 1` if the stored revision is still
   * `expectedRevision` (0: nothing stored yet). Another writer in between → ConflictError,
   * so a compressor and a duplicate step run cannot overwrite each other's history.
   */
  put(investigationId: string, history: StepHistoryDraft, expectedRevision: number): Promise<StepHistory>;
}

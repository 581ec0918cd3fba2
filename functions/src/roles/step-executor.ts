import { z } from "zod";
import { runStepExecutor } from "../app/step-executor.js";
import { ApprovalIdSchema } from "../domain/approval-record.js";
import { StepResultSchema } from "../domain/results.js";
import { workflowRoleDefinition } from "./role.js";
import { StepRequestSchema } from "./workflow-requests.js";

/** Runs one step of the plan with its tools, the log-analysis sub-agent among them (app/step-executor.ts). */
export const stepExecutor = workflowRoleDefinition({
  name: "stepExecutor",
  needs: { tools: true, chat: false },
  request: StepRequestSchema,
  response: z.object({
    stepId: z.string(),
    /**
     * context_pressure: no result yet; the workflow calls the compressor, then runs the step again.
     * cancelled: the plan cancelled the step before it started; nothing ran.
     */
    status: z.union([StepResultSchema.shape.status, z.enum(["context_pressure", "cancelled"])]),
    /** False when the result already existed and this call changed nothing. */
    executed: z.boolean(),
    reason: z.string().optional(),
    /** Acting calls the step held: the workflow pauses on each for a person's approval. */
    held: z.array(z.object({ approvalId: ApprovalIdSchema, tool: z.string() })),
  }),
  run: async (input, deps) => {
    const outcome = await runStepExecutor(input.investigationId, input.stepId, deps);
    return {
      stepId: outcome.stepId,
      status: outcome.status,
      executed: outcome.executed,
      ...(outcome.reason ? { reason: outcome.reason } : {}),
      held: outcome.held ?? [],
    };
  },
});

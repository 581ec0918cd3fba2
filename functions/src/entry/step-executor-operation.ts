import type { z } from "zod";
import { runStepExecutor } from "../app/step-executor.js";
import type { StepRequestSchema } from "./http-requests.js";
import type { Operation } from "./workflow-call.js";

export const stepExecutorOperation: Operation<z.infer<typeof StepRequestSchema>> = async (input, deps) => {
  const outcome = await runStepExecutor(input.investigationId, input.stepId, deps);
  return {
    stepId: outcome.stepId,
    status: outcome.status,
    executed: outcome.executed,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    // Acting calls the step held: the workflow pauses on each for a person's approval.
    held: outcome.held ?? [],
  };
};

import type { Request, Response } from "@google-cloud/functions-framework";
import type { z } from "zod";
import { compressStep } from "../app/compression.js";
import { advance, finish, markFailed, runStep, startPlanning } from "../app/operations.js";
import { createLogger } from "../platform/logger.js";
import {
  AdvanceRequestSchema,
  FinishRequestSchema,
  InvestigationRefSchema,
  StepRequestSchema,
} from "./http-requests.js";
import { appDepsFor, type Runtime } from "./runtime.js";
import { answerWorkflowCall, type Operation } from "./workflow-call.js";

/** For failures before the runtime (and its logger) exists: masked like every other log line. */
const startupLogger = createLogger();

/**
 * Wraps one investigation operation as an HTTP function called by the workflow:
 * POST + JSON only; the rest (validation, the answer, error statuses) is answerWorkflowCall's.
 */
export function workflowHandler<I extends { investigationId: string }>(
  name: string,
  schema: z.ZodType<I>,
  operation: Operation<I>,
  runtime: () => Promise<Runtime>,
) {
  return async (req: Request, res: Response): Promise<void> => {
    if (req.method !== "POST") {
      res
        .status(405)
        .json({ error: { code: "method_not_allowed", message: "POST a JSON body", retryable: false } });
      return;
    }
    const answer = await answerWorkflowCall(
      name,
      schema,
      operation,
      req.body,
      async (id) => {
        const rt = await runtime();
        return appDepsFor(rt, await rt.store.get(id));
      },
      startupLogger,
    );
    res.status(answer.status).json(answer.body);
  };
}

export const plannerOperation: Operation<z.infer<typeof InvestigationRefSchema>> = async (input, deps) => ({
  next: await startPlanning(input.investigationId, deps),
});

export const stepOperation: Operation<z.infer<typeof StepRequestSchema>> = async (input, deps) => {
  const outcome = await runStep(input.investigationId, input.stepId, deps);
  return {
    stepId: outcome.stepId,
    status: outcome.status,
    executed: outcome.executed,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
  };
};

/** Called by the workflow after a step answered context_pressure, before it runs the step again. */
export const compressorOperation: Operation<z.infer<typeof StepRequestSchema>> = async (input, deps) => {
  const outcome = await compressStep(input.investigationId, input.stepId, deps);
  return { ...outcome };
};

export const advanceOperation: Operation<z.infer<typeof AdvanceRequestSchema>> = async (input, deps) => ({
  next: await advance(input.investigationId, input.wave, input.stepIds, deps),
});

export const finishOperation: Operation<z.infer<typeof FinishRequestSchema>> = async (input, deps) => {
  const investigation =
    input.mode === "fail"
      ? await markFailed(input.investigationId, input.reason || "the workflow failed", deps)
      : await finish(input.investigationId, input.mode, input.reason, deps);
  return {
    investigationId: investigation.id,
    status: investigation.status,
    ...(investigation.conclusion
      ? { verdict: investigation.conclusion.verdict, confidence: investigation.conclusion.confidence }
      : {}),
  };
};

export const HTTP_SCHEMAS = {
  planner: InvestigationRefSchema,
  stepExecutor: StepRequestSchema,
  reflector: AdvanceRequestSchema,
  concluder: FinishRequestSchema,
  compressor: StepRequestSchema,
} as const;

/** Each HTTP function the workflow calls: its request schema and its operation. */
export const WORKFLOW_FUNCTIONS = {
  planner: { schema: HTTP_SCHEMAS.planner, operation: plannerOperation },
  stepExecutor: { schema: HTTP_SCHEMAS.stepExecutor, operation: stepOperation },
  reflector: { schema: HTTP_SCHEMAS.reflector, operation: advanceOperation },
  concluder: { schema: HTTP_SCHEMAS.concluder, operation: finishOperation },
  compressor: { schema: HTTP_SCHEMAS.compressor, operation: compressorOperation },
} as const;

export type WorkflowFunctionName = keyof typeof WORKFLOW_FUNCTIONS;

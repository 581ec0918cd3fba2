import type { Request, Response } from "@google-cloud/functions-framework";
import type { z } from "zod";
import { requestApproval, settleApproval } from "../app/approval-responder.js";
import { runCompressor } from "../app/compressor.js";
import { failInvestigation, runConcluder } from "../app/concluder.js";
import type { AppDeps } from "../app/deps.js";
import { runPlanner } from "../app/planner.js";
import { runReflector } from "../app/reflector.js";
import { runStepExecutor } from "../app/step-executor.js";
import { createLogger, type Logger } from "../platform/logger.js";
import {
  ConcluderRequestSchema,
  InvestigationRefSchema,
  ReflectorRequestSchema,
  ResponderRequestSchema,
  StepRequestSchema,
} from "./http-requests.js";
import { appDepsFor, type Runtime } from "./runtime.js";
import { answerWorkflowCall, type Operation, type WorkflowCallAnswer } from "./workflow-call.js";

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
  next: await runPlanner(input.investigationId, deps),
});

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

/** The responder (docs/decisions/0031): records a held call, then settles or runs it. */
export const responderOperation: Operation<z.infer<typeof ResponderRequestSchema>> = async (input, deps) =>
  input.operation === "request"
    ? { ...(await requestApproval(input, deps)) }
    : { ...(await settleApproval(input, deps)) };

/** Called by the workflow after a step answered context_pressure, before it runs the step again. */
export const compressorOperation: Operation<z.infer<typeof StepRequestSchema>> = async (input, deps) => {
  const outcome = await runCompressor(input.investigationId, input.stepId, deps);
  return { ...outcome };
};

export const reflectorOperation: Operation<z.infer<typeof ReflectorRequestSchema>> = async (input, deps) => ({
  next: await runReflector(input.investigationId, input.wave, input.stepIds, deps),
});

export const concluderOperation: Operation<z.infer<typeof ConcluderRequestSchema>> = async (input, deps) => {
  const investigation =
    input.mode === "fail"
      ? await failInvestigation(input.investigationId, input.reason || "the workflow failed", deps)
      : await runConcluder(input.investigationId, input.mode, input.reason, deps);
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
  reflector: ReflectorRequestSchema,
  concluder: ConcluderRequestSchema,
  compressor: StepRequestSchema,
  responder: ResponderRequestSchema,
} as const;

/** One workflow function's answer to a request body, whatever carries it. */
export type WorkflowFunction = (
  body: unknown,
  depsFor: (investigationId: string) => Promise<AppDeps>,
  logger: Logger,
) => Promise<WorkflowCallAnswer>;

function bound<I extends { investigationId: string }>(
  name: string,
  schema: z.ZodType<I>,
  operation: Operation<I>,
): WorkflowFunction {
  return (body, depsFor, logger) => answerWorkflowCall(name, schema, operation, body, depsFor, logger);
}

/** Each HTTP function the workflow calls, by its function name. */
export const WORKFLOW_FUNCTIONS = {
  planner: bound("planner", HTTP_SCHEMAS.planner, plannerOperation),
  stepExecutor: bound("stepExecutor", HTTP_SCHEMAS.stepExecutor, stepExecutorOperation),
  reflector: bound("reflector", HTTP_SCHEMAS.reflector, reflectorOperation),
  concluder: bound("concluder", HTTP_SCHEMAS.concluder, concluderOperation),
  compressor: bound("compressor", HTTP_SCHEMAS.compressor, compressorOperation),
  responder: bound("responder", HTTP_SCHEMAS.responder, responderOperation),
} as const satisfies Record<string, WorkflowFunction>;

export type WorkflowFunctionName = keyof typeof WORKFLOW_FUNCTIONS;

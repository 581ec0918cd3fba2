import type { z } from "zod";
import type { AppDeps } from "../app/deps.js";
import type { Logger } from "../platform/logger.js";
import { compressorOperation } from "./compressor-operation.js";
import { concluderOperation } from "./concluder-operation.js";
import { WORKFLOW_REQUEST_SCHEMAS } from "./http-requests.js";
import { plannerOperation } from "./planner-operation.js";
import { reflectorOperation } from "./reflector-operation.js";
import { responderOperation } from "./responder-operation.js";
import { stepExecutorOperation } from "./step-executor-operation.js";
import { answerWorkflowCall, type Operation, type WorkflowCallAnswer } from "./workflow-call.js";

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

/**
 * Each HTTP function the workflow calls, by its function name, in one table for what runs the
 * workflow in one process (local/in-process-workflow.ts). A deployed function loads only its own
 * operation (entry-modules.ts), so its cold import does not carry the other roles.
 */
export const WORKFLOW_FUNCTIONS = {
  planner: bound("planner", WORKFLOW_REQUEST_SCHEMAS.planner, plannerOperation),
  stepExecutor: bound("stepExecutor", WORKFLOW_REQUEST_SCHEMAS.stepExecutor, stepExecutorOperation),
  reflector: bound("reflector", WORKFLOW_REQUEST_SCHEMAS.reflector, reflectorOperation),
  concluder: bound("concluder", WORKFLOW_REQUEST_SCHEMAS.concluder, concluderOperation),
  compressor: bound("compressor", WORKFLOW_REQUEST_SCHEMAS.compressor, compressorOperation),
  responder: bound("responder", WORKFLOW_REQUEST_SCHEMAS.responder, responderOperation),
} as const satisfies Record<string, WorkflowFunction>;

export type WorkflowFunctionName = keyof typeof WORKFLOW_FUNCTIONS;

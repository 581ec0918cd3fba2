import type { Request, Response } from "@google-cloud/functions-framework";
import type { z } from "zod";
import { createLogger } from "../platform/logger.js";
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
      res.status(405).json({
        error: { function: name, code: "method_not_allowed", message: "POST a JSON body", retryable: false },
      });
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

import type { Request, Response } from "@google-cloud/functions-framework";
import type { z } from "zod";
import { compressStep } from "../app/compression.js";
import type { AppDeps } from "../app/deps.js";
import { advance, finish, markFailed, runStep, startPlanning } from "../app/operations.js";
import type { JsonObject } from "../domain/json.js";
import { createLogger } from "../platform/logger.js";
import { toHttpFailure } from "./http-errors.js";
import {
  AdvanceRequestSchema,
  FinishRequestSchema,
  InvestigationRefSchema,
  StepRequestSchema,
} from "./http-requests.js";
import { appDepsFor, type Runtime } from "./runtime.js";

/** For failures before the runtime (and its logger) exists: masked like every other log line. */
const startupLogger = createLogger();

type Operation<I> = (input: I, deps: AppDeps) => Promise<JsonObject>;

/**
 * Wraps one investigation operation as an HTTP function called by the workflow:
 * POST + JSON only, body validated, small JSON answer, errors mapped to statuses the
 * workflow's retry policy understands.
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
    const parsed = schema.safeParse(req.body);
    if (!parsed.success) {
      const message = parsed.error.issues
        .map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`)
        .join("; ");
      res.status(400).json({ error: { code: "invalid_input", message, retryable: false } });
      return;
    }
    let rt: Runtime | undefined;
    try {
      rt = await runtime();
      const investigation = await rt.store.get(parsed.data.investigationId);
      const deps = appDepsFor(rt, investigation);
      const started = Date.now();
      const body = await operation(parsed.data, deps);
      deps.logger.info(`${name} done`, {
        function: name,
        durationMs: Date.now() - started,
        ...summarize(body),
      });
      res.status(200).json(body);
    } catch (error) {
      const failure = toHttpFailure(error);
      (rt?.logger ?? startupLogger).error(`${name} failed`, {
        function: name,
        investigationId: parsed.data.investigationId,
        status: failure.status,
        error: failure.body.error,
      });
      res.status(failure.status).json(failure.body);
    }
  };
}

function summarize(body: JsonObject): Record<string, unknown> {
  const next = body.next;
  return next && typeof next === "object" && !Array.isArray(next) ? { next: next.kind } : {};
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

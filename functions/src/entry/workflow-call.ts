import type { z } from "zod";
import type { AppDeps } from "../app/deps.js";
import type { JsonObject } from "../domain/json.js";
import type { Logger } from "../platform/logger.js";
import { toHttpFailure } from "./http-errors.js";

export type Operation<I> = (input: I, deps: AppDeps) => Promise<JsonObject>;

export interface WorkflowCallAnswer {
  status: number;
  body: JsonObject;
}

/**
 * One call from the workflow to a role, whatever carries it (the HTTP function, or the
 * in-process transport that runs the same YAML in tests, eval and the bench): the body is
 * validated, the operation runs with the investigation's dependencies, and errors become the
 * statuses the workflow's retry policy understands, with a body naming the function and saying
 * why. One place, so both paths answer alike.
 */
export async function answerWorkflowCall<I extends { investigationId: string }>(
  name: string,
  schema: z.ZodType<I>,
  operation: Operation<I>,
  body: unknown,
  depsFor: (investigationId: string) => Promise<AppDeps>,
  fallbackLogger: Logger,
): Promise<WorkflowCallAnswer> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const message = parsed.error.issues
      .map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`)
      .join("; ");
    return {
      status: 400,
      body: { error: { function: name, code: "invalid_input", message, retryable: false } },
    };
  }
  let deps: AppDeps | undefined;
  try {
    deps = await depsFor(parsed.data.investigationId);
    const started = Date.now();
    const answer = await operation(parsed.data, deps);
    deps.logger.info(`${name} done`, {
      function: name,
      durationMs: Date.now() - started,
      ...summarize(answer),
    });
    return { status: 200, body: answer };
  } catch (error) {
    const failure = toHttpFailure(error);
    (deps?.logger ?? fallbackLogger).error(`${name} failed`, {
      function: name,
      investigationId: parsed.data.investigationId,
      status: failure.status,
      error: failure.body.error,
    });
    // The function's name travels with its message: the workflow words the investigation's
    // failure reason from both ("the planner refused: …"), so no one reads a bare status code.
    return { status: failure.status, body: { error: { function: name, ...failure.body.error } } };
  }
}

function summarize(body: JsonObject): Record<string, unknown> {
  const next = body.next;
  return next && typeof next === "object" && !Array.isArray(next) ? { next: next.kind } : {};
}

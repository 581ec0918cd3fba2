import type { z } from "zod";
import type { AppDeps } from "../app/deps.js";
import type { Logger } from "../platform/logger.js";
import { inInvestigationSpan } from "../platform/tracing.js";
import type { InvestigationRef, WorkflowRoleDefinition } from "../roles/role.js";
import { toHttpFailure } from "./http-errors.js";

/**
 * The span each workflow role's call is, named by the planning design's phases (the seeds'
 * planning spec: understand, decompose and plan are one planner call in ferret, so its span is
 * the plan's generation; reflection revises the plan inside its evaluation).
 */
const PHASE_SPANS: Readonly<Record<string, string>> = {
  planner: "planning.generate_action_plan",
  stepExecutor: "execution.execute_action",
  compressor: "execution.compress_context",
  responder: "execution.respond",
  reflector: "reflection.evaluate_action",
  concluder: "conclusion.conclude",
};

/** What a workflow role says when it fails: the workflow words the investigation's reason from it. */
interface WorkflowCallFailure {
  error: { function: string; code: string; message: string; retryable: boolean };
}

export type WorkflowCallAnswer =
  | { status: 200; body: unknown }
  | { status: number; body: WorkflowCallFailure };

/**
 * One call from the workflow to a role, whatever carries it (the HTTP function, or the
 * in-process transport that runs the same YAML in tests, eval and the bench): the role's file
 * is loaded (once), the body is validated by its request schema, the role runs with the
 * investigation's dependencies, its answer is checked against its response schema, and errors
 * become the statuses the workflow's retry policy understands, with a body naming the function
 * and saying why. One place, so both paths answer alike.
 */
export async function answerWorkflowCall<
  Name extends string,
  Req extends z.ZodType<InvestigationRef>,
  Res extends z.ZodType,
>(
  name: Name,
  definition: () => Promise<WorkflowRoleDefinition<Name, Req, Res>>,
  body: unknown,
  depsFor: (investigationId: string) => Promise<AppDeps>,
  fallbackLogger: Logger,
): Promise<WorkflowCallAnswer> {
  let role: WorkflowRoleDefinition<Name, Req, Res>;
  try {
    role = await definition();
  } catch (error) {
    return failed(name, error, fallbackLogger, {});
  }
  const parsed = role.request.safeParse(body);
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
    const ready = deps;
    const stepId = (parsed.data as { stepId?: unknown }).stepId;
    const answer = checked(
      role,
      await inInvestigationSpan(
        parsed.data.investigationId,
        PHASE_SPANS[name] ?? `${name}.call`,
        { "ferret.role": name, ...(typeof stepId === "string" ? { "ferret.step_id": stepId } : {}) },
        () => role.run(parsed.data, ready),
      ),
    );
    deps.logger.info(`${name} done`, {
      function: name,
      durationMs: Date.now() - started,
      ...role.logged?.(answer),
    });
    return { status: 200, body: answer };
  } catch (error) {
    return failed(name, error, deps?.logger ?? fallbackLogger, {
      investigationId: parsed.data.investigationId,
    });
  }
}

function failed(
  name: string,
  error: unknown,
  logger: Logger,
  fields: Record<string, unknown>,
): { status: number; body: WorkflowCallFailure } {
  const failure = toHttpFailure(error);
  logger.error(`${name} failed`, {
    function: name,
    ...fields,
    status: failure.status,
    error: failure.body.error,
  });
  // The function's name travels with its message: the workflow words the investigation's
  // failure reason from both ("the planner refused: …"), so no one reads a bare status code.
  return { status: failure.status, body: { error: { function: name, ...failure.body.error } } };
}

/**
 * The answer as the role's schema says it is. One that is not is ferret's bug, reported as
 * such (a 500 the workflow does not retry), never handed to the workflow to misread.
 */
function checked<Res extends z.ZodType>(
  role: { name: string; response: Res },
  answer: z.input<Res>,
): z.output<Res> {
  const result = role.response.safeParse(answer);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => `${i.path.join(".") || "(answer)"}: ${i.message}`);
  throw new Error(`ferret bug: the ${role.name} answer does not match its schema: ${issues.join("; ")}`);
}

import { readFileSync } from "node:fs";
import {
  type CallbackEndpoints,
  type HttpRequest,
  type HttpResponse,
  type LoadedWorkflow,
  loadWorkflow,
  runWorkflow,
} from "../../../workflows/runner/index.js";
import type { AppDeps } from "../app/deps.js";
import { NotFoundError } from "../domain/errors.js";
import type { Investigation } from "../domain/investigation.js";
import { fromRoot } from "../platform/paths.js";
import { WORKFLOW_ROLES } from "../roles/index.js";
import type { WorkflowRole } from "../roles/role.js";

/**
 * The deployed workflow, run in this process: workflows/investigate.yaml on the local runner,
 * with the runner's HTTP calls answered by the functions' own operations instead of servers.
 * Eval, the bench and the budget and injection tests investigate through it, so there is one
 * orchestrator: what they measure is the production sequence, wave cap, retries and deadline
 * included. Only the transport differs from the local stack (no sockets, no JSON over HTTP
 * framing); bodies are still encoded, validated and size-checked as the runner sends them.
 */

/** Where the workflow's URLs point: one host per role, named after it. */
const SCHEME = "in-process:";
const ROLE_BY_HOST: ReadonlyMap<string, WorkflowRole> = new Map(
  WORKFLOW_ROLES.map((role) => [role.name, role]),
);

let loaded: LoadedWorkflow | undefined;

/** The YAML Terraform deploys, loaded (and checked) once per process. */
export function investigateWorkflow(): LoadedWorkflow {
  loaded ??= loadWorkflow(readFileSync(fromRoot("workflows/investigate.yaml"), "utf8"), {
    sourceName: "workflows/investigate.yaml",
  });
  return loaded;
}

export interface InProcessOptions {
  /**
   * Runs around every function call: the bench times operations with it, a fault test
   * records the answers. Defaults to just making the call.
   */
  around?: (fn: string, call: () => Promise<HttpResponse>) => Promise<HttpResponse>;
  /** Extra values for sys.get_env, e.g. FERRET_STEP_EXECUTOR_TIMEOUT_SECONDS. */
  env?: Record<string, string>;
  /**
   * Callback endpoints for the approval pause (workflows/runner/callback-server.ts); without
   * them a step that holds an acting call fails the workflow, as a runner without callbacks must.
   */
  callbacks?: CallbackEndpoints;
}

/**
 * A transport for the runner that answers each function's URL by calling its operation with
 * `depsFor(investigationId)`, exactly as the HTTP function would (same schema, same error
 * statuses).
 */
export function inProcessTransport(
  depsFor: (investigationId: string) => Promise<AppDeps>,
  options: Pick<InProcessOptions, "around"> & { logger: AppDeps["logger"] },
): (request: HttpRequest) => Promise<HttpResponse> {
  return async (request) => {
    const url = new URL(request.url);
    const role = url.protocol === SCHEME ? ROLE_BY_HOST.get(url.hostname) : undefined;
    if (!role) return json(404, { error: { message: `no function at ${request.url}` } });
    const call = async (): Promise<HttpResponse> => {
      if (request.method !== "POST") return json(405, { error: { message: "POST a JSON body" } });
      let body: unknown;
      try {
        body = JSON.parse(request.body ?? "null");
      } catch {
        return json(400, {
          error: { code: "invalid_input", message: "the body is not JSON", retryable: false },
        });
      }
      const answer = await role.call(body, depsFor, options.logger);
      return json(answer.status, answer.body);
    };
    return options.around ? options.around(role.name, call) : call();
  };
}

/**
 * Investigates `id` (already created, status queued) through the workflow, the way an
 * execution started by ingest would, and returns the investigation as it ended. A workflow
 * that fails after marking the investigation failed returns it too (that is its terminal
 * state); a failure that left it unfinished is thrown, with the workflow's error.
 */
export async function investigateInProcess(
  id: string,
  deps: AppDeps,
  options: InProcessOptions = {},
): Promise<Investigation> {
  return investigateWith(id, async () => deps, deps, options);
}

/** As investigateInProcess, with dependencies built per call (e.g. appDepsFor's sticky offline fallback). */
export async function investigateWith(
  id: string,
  depsFor: (investigationId: string) => Promise<AppDeps>,
  base: Pick<AppDeps, "store" | "config" | "logger">,
  options: InProcessOptions = {},
): Promise<Investigation> {
  const env: Record<string, string> = { ...options.env };
  for (const role of WORKFLOW_ROLES) env[role.urlEnv] = `${SCHEME}//${role.name}/`;
  let failure: unknown;
  try {
    await runWorkflow(
      investigateWorkflow(),
      { investigationId: id, deadlineSeconds: base.config.agent.totalDeadlineSeconds },
      {
        env,
        http: inProcessTransport(depsFor, { ...options, logger: base.logger }),
        ...(options.callbacks ? { callbacks: options.callbacks } : {}),
      },
    );
  } catch (error) {
    failure = error;
  }
  const investigation = await base.store.get(id);
  if (!investigation) throw new NotFoundError(`investigation ${id} does not exist`);
  // The execution's own error (a WorkflowError with the Workflows error map) says more than any wrapper.
  if (failure && investigation.status !== "failed") throw failure;
  return investigation;
}

function json(status: number, body: unknown): HttpResponse {
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

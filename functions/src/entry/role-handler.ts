import type { CloudEvent, Request, Response } from "@google-cloud/functions-framework";
import { createLogger } from "../platform/logger.js";
import { flushTelemetry } from "../platform/telemetry-flush.js";
import type { PubSubRole, Role, SlackRole, WorkflowRole } from "../roles/role.js";
import type { Runtime } from "./runtime.js";

export type HttpHandler = (req: Request, res: Response) => Promise<void>;
export type EventHandler = (event: CloudEvent<unknown>) => Promise<void>;

/** For failures before the runtime (and its logger) exists: masked like every other log line. */
const startupLogger = createLogger();

/**
 * The runtime a role's function builds on its first call, with what its role needs. The
 * composition root loads then, not at import: no cloud SDK is part of a function's cold import.
 */
function runtimeFor(role: Role): () => Promise<Runtime> {
  return async () => (await import("./compose.js")).getRuntime((await role.definition()).needs);
}

/**
 * A workflow role as an HTTP function: POST + JSON only; the rest (validation, the answer,
 * error statuses) is the role's call (entry/workflow-call.ts).
 */
export function workflowHandler(
  role: WorkflowRole,
  runtime: () => Promise<Runtime> = runtimeFor(role),
): HttpHandler {
  return async (req, res) => {
    if (req.method !== "POST") {
      res.status(405).json({
        error: {
          function: role.name,
          code: "method_not_allowed",
          message: "POST a JSON body",
          retryable: false,
        },
      });
      return;
    }
    const answer = await role.call(
      req.body,
      async (id) => {
        const rt = await runtime();
        const { appDepsFor } = await import("./runtime.js");
        return appDepsFor(rt, await rt.store.get(id));
      },
      startupLogger,
    );
    // Before answering: after it, Cloud Run throttles the instance (platform/telemetry.ts).
    await flushTelemetry();
    res.status(answer.status).json(answer.body);
  };
}

/** A Pub/Sub role as a CloudEvent function. */
export function eventHandler(
  role: PubSubRole,
  runtime: () => Promise<Runtime> = runtimeFor(role),
): EventHandler {
  return async (event) => {
    try {
      await role.deliver(event, runtime);
    } finally {
      await flushTelemetry();
    }
  };
}

/**
 * A role's function as its first request finds it: the role's file imported, the handler
 * built, the runtime not yet (it is built on the handler's first call).
 */
export async function loadHttpHandler(role: WorkflowRole | SlackRole): Promise<HttpHandler> {
  if (role.calledBy === "slack") return role.handler(runtimeFor(role));
  await role.definition();
  return workflowHandler(role);
}

export async function loadEventHandler(role: PubSubRole): Promise<EventHandler> {
  await role.definition();
  return eventHandler(role);
}

/** Either, for what loads a function by its role alone (the cold-import bench and graph test). */
export function loadHandler(role: Role): Promise<HttpHandler | EventHandler> {
  return role.trigger === "pubsub" ? loadEventHandler(role) : loadHttpHandler(role);
}

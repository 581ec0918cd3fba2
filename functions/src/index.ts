import type { CloudEvent } from "@google-cloud/functions-framework";
import * as ff from "@google-cloud/functions-framework";
import type { EventHandler, HttpHandler } from "./entry/role-handler.js";
import { lazy } from "./platform/lazy.js";
import { ROLES } from "./roles/index.js";

/**
 * Every Cloud Function of ferret, registered from one source tree: one per role in
 * roles/index.ts, under the role's name (the entry point Terraform deploys). Registering loads
 * the roles' definitions (names, triggers, schemas) and functions-framework, nothing else: a
 * function's own code loads on its first request, and its runtime (the cloud clients) on the
 * first call of its handler, so an instance of the notifier never loads the log warehouse, the
 * tools or the models.
 */
const handlers = () => import("./entry/role-handler.js");

for (const role of ROLES) {
  if (role.trigger === "pubsub") {
    const handler = lazy(async (): Promise<EventHandler> => (await handlers()).loadEventHandler(role));
    ff.cloudEvent(role.name, async (event: CloudEvent<unknown>) => (await handler())(event));
  } else {
    const handler = lazy(async (): Promise<HttpHandler> => (await handlers()).loadHttpHandler(role));
    ff.http(role.name, async (req, res) => (await handler())(req, res));
  }
}

// The web console (functions/src/console/): served behind Identity-Aware Proxy, its own loader.
const consoleHandler = lazy(async () => (await import("./console/function.js")).consoleFunction());
ff.http("console", async (req, res) => (await consoleHandler())(req, res));

import type { CloudEvent, Request, Response } from "@google-cloud/functions-framework";
import * as ff from "@google-cloud/functions-framework";
import { ENTRY_POINT_MODULES, type EntryPointModuleName } from "./entry/entry-modules.js";

/**
 * Every Cloud Function of ferret, registered from one source tree. Each deployed function
 * names one of these as its entry point (platform/entrypoints.ts lists them; Terraform and
 * the local stack are checked against that list). Registering imports nothing but
 * functions-framework: a function's own modules (and the adapters its runtime builds) load
 * on its first request, so an instance of the notifier never loads the log warehouse, the
 * tools or the models (functions/entry-modules.ts says which module serves which function).
 */
function http(name: EntryPointModuleName): void {
  let handler: Promise<(req: Request, res: Response) => Promise<void>> | undefined;
  ff.http(name, async (req, res) => {
    handler ??= ENTRY_POINT_MODULES[name]().then(
      (load) => load as (req: Request, res: Response) => Promise<void>,
    );
    await (await handler)(req, res);
  });
}

function cloudEvent(name: EntryPointModuleName): void {
  let handler: Promise<(event: CloudEvent<unknown>) => Promise<void>> | undefined;
  ff.cloudEvent(name, async (event: CloudEvent<unknown>) => {
    handler ??= ENTRY_POINT_MODULES[name]().then(
      (load) => load as (event: CloudEvent<unknown>) => Promise<void>,
    );
    await (await handler)(event);
  });
}

http("planner");
http("stepExecutor");
http("reflector");
http("concluder");
http("compressor");
http("responder");
cloudEvent("ingest");
cloudEvent("memoryIntrospector");
cloudEvent("notifier");
cloudEvent("sweep");
http("slackEvents");
cloudEvent("analystActions");

// The web console (functions/src/console/): served behind Identity-Aware Proxy, its own loader.
let consoleHandler: Promise<(req: Request, res: Response) => Promise<void>> | undefined;
ff.http("console", async (req, res) => {
  consoleHandler ??= import("./console/function.js").then((m) => m.consoleFunction());
  await (await consoleHandler)(req, res);
});

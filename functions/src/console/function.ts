import type { Request, Response } from "express";
import { consoleApp } from "./app.js";

type ConsoleApp = ReturnType<typeof consoleApp>;

/**
 * The `console` HTTP function: the express app, built once per instance from the environment.
 * The module imports the app's own code only; the Firestore and Pub/Sub clients (compose.ts)
 * and the IAP verifier load with the first request, as every other function's runtime does.
 * A build that fails (a missing setting) is tried again on the next request. functions-framework
 * hands over its own express request and response, which the console's app serves like any other.
 */
export function consoleFunction(): (req: Request, res: Response) => Promise<void> {
  let app: Promise<ConsoleApp> | undefined;
  const build = async (): Promise<ConsoleApp> => {
    const [{ buildConsoleRuntime }, { authenticatorFor }] = await Promise.all([
      import("./compose.js"),
      import("./identity.js"),
    ]);
    const runtime = buildConsoleRuntime();
    return consoleApp({
      deps: runtime.deps,
      authenticate: authenticatorFor(runtime.config),
      behindProxy: runtime.config.console.auth === "iap",
    });
  };
  return async (req, res) => {
    app ??= build().catch((error: unknown) => {
      app = undefined;
      throw error;
    });
    const served = await app;
    await new Promise<void>((resolve, reject) => {
      res.once("finish", resolve);
      res.once("close", resolve);
      served(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
    });
  };
}

import type { Request, Response } from "express";
import { consoleApp } from "./app.js";
import { buildConsoleRuntime } from "./compose.js";
import { authenticatorFor } from "./identity.js";

/**
 * The `console` HTTP function: the express app, built once per instance from the environment.
 * functions-framework hands over its own express request and response, which the console's
 * app serves like any other.
 */
export function consoleFunction(): (req: Request, res: Response) => Promise<void> {
  let app: ReturnType<typeof consoleApp> | undefined;
  return async (req, res) => {
    if (!app) {
      const runtime = buildConsoleRuntime();
      app = consoleApp({
        deps: runtime.deps,
        authenticate: authenticatorFor(runtime.config),
        behindProxy: runtime.config.console.auth === "iap",
      });
    }
    await new Promise<void>((resolve, reject) => {
      res.once("finish", resolve);
      res.once("close", resolve);
      (app as ReturnType<typeof consoleApp>)(req, res, (error?: unknown) =>
        error ? reject(error) : resolve(),
      );
    });
  };
}

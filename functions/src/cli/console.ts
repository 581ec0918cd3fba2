import { existsSync, mkdirSync, readFileSync } from "node:fs";
import type { Server } from "node:http";
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { consoleApp } from "../console/app.js";
import { buildConsoleRuntime } from "../console/compose.js";
import { authenticatorFor } from "../console/identity.js";
import { InvalidInputError } from "../domain/errors.js";
import { type EmulatorStack, startEmulators } from "../local/emulators.js";
import {
  exportedProject,
  FIRESTORE_EXPORT_DIR,
  importableExport,
  newestExportedRun,
} from "../local/firestore-export.js";
import { TRACE_FILE_NAME } from "../local/stack.js";
import { fromRoot } from "../platform/paths.js";
import { LOCAL_PROJECT, projectFromEnv } from "./project.js";
import type { Printer } from "./sweep.js";

export const DEFAULT_CONSOLE_PORT = 8484;

const HELP_AFTER = `
Data: with FIRESTORE_EMULATOR_HOST (and PUBSUB_EMULATOR_HOST) set, e.g. by
\`ferret investigate --keep-running\`, it serves those emulators. Otherwise it starts its own
emulators from a run's Firestore export: --run <dir>, or the newest run under .ferret/runs
that has one (\`npm run demo\` leaves one). The console listens on 127.0.0.1 only and acts as
FERRET_CONSOLE_LOCAL_USER (console.localUser); deployed, Identity-Aware Proxy says who you are.

Spans: an investigation's page draws its trace from the run's ${TRACE_FILE_NAME} (with --run, or
the newest run), or from the file FERRET_TRACE_FILE names when serving running emulators.`;

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError("expected a port number");
  return n;
}

export interface ServedConsole {
  url: string;
  close(): Promise<void>;
}

/** Serves the console on loopback over the emulators named in `env`. */
export async function serveConsole(env: NodeJS.ProcessEnv, listenPort: number): Promise<ServedConsole> {
  const runtime = buildConsoleRuntime({
    ...env,
    GOOGLE_CLOUD_PROJECT: projectFromEnv(env),
    FERRET_CONSOLE_AUTH: "local",
  });
  const app = consoleApp({
    deps: runtime.deps,
    authenticate: authenticatorFor(runtime.config),
    behindProxy: false,
  });
  const server: Server = app.listen(listenPort, "127.0.0.1");
  await new Promise<void>((ok, fail) => {
    server.once("listening", () => ok());
    server.once("error", fail);
  });
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : listenPort;
  return {
    url: `http://127.0.0.1:${actual}`,
    close: async () => {
      await new Promise<void>((ok) => server.close(() => ok()));
      await runtime.close();
    },
  };
}

/** The investigation a run directory's report names, for the printed link. */
function runInvestigationId(runDir: string): string | undefined {
  const file = join(runDir, "investigation.json");
  if (!existsSync(file)) return undefined;
  const id = (JSON.parse(readFileSync(file, "utf8")) as { investigation?: { id?: unknown } }).investigation
    ?.id;
  return typeof id === "string" && /^inv-[a-f0-9]{24}$/.test(id) ? id : undefined;
}

/** `ferret console`: the web console on the local emulators. */
export function consoleCommand(
  printer: Printer = { line: (text) => process.stdout.write(`${text}\n`) },
  env: NodeJS.ProcessEnv = process.env,
  untilStopped: () => Promise<void> = () =>
    new Promise((ok) => {
      process.once("SIGINT", () => ok());
      process.once("SIGTERM", () => ok());
    }),
): Command {
  return new Command("console")
    .description(
      "Serve the web console (investigations, plan graphs, memories, queue, agreement report) on 127.0.0.1, over the local emulators.",
    )
    .option("--port <n>", "port on 127.0.0.1 (0: any free one)", port, DEFAULT_CONSOLE_PORT)
    .option("--run <dir>", "a run directory under .ferret/runs whose Firestore export to serve")
    .addHelpText("after", HELP_AFTER)
    .action(async (opts: { port: number; run?: string }) => {
      let emulators: EmulatorStack | undefined;
      let serveEnv: NodeJS.ProcessEnv = env;
      let runDir: string | undefined;
      if (!env.FIRESTORE_EMULATOR_HOST || opts.run) {
        runDir = opts.run ? resolve(opts.run) : newestExportedRun(fromRoot(".ferret", "runs"));
        const exported = runDir ? importableExport(join(runDir, FIRESTORE_EXPORT_DIR)) : undefined;
        if (!runDir || !exported) {
          throw new InvalidInputError(
            runDir
              ? `${runDir} has no ${FIRESTORE_EXPORT_DIR}/: run \`npm run demo\` (it leaves one), or set FIRESTORE_EMULATOR_HOST`
              : "no run to serve: run `npm run demo` first, or set FIRESTORE_EMULATOR_HOST and PUBSUB_EMULATOR_HOST",
          );
        }
        const logDir = join(runDir, "console-emulators");
        mkdirSync(logDir, { recursive: true });
        printer.line(`ferret console: starting the emulators with ${exported}`);
        // The documents live under the project the run wrote them in (the user's, on their own project).
        const projectId = exportedProject(join(runDir, FIRESTORE_EXPORT_DIR), LOCAL_PROJECT);
        emulators = await startEmulators({
          projectId,
          logDir,
          firestoreImportDir: exported,
          env: {},
        });
        // The run's spans, where its functions appended them (local/stack.ts).
        serveEnv = { ...env, ...emulators.env, FERRET_TRACE_FILE: join(runDir, TRACE_FILE_NAME) };
        // The Google client libraries find the emulators in this process's environment.
        Object.assign(process.env, emulators.env);
      }
      try {
        const served = await serveConsole(serveEnv, opts.port);
        const id = runDir ? runInvestigationId(runDir) : undefined;
        printer.line(`ferret console: ${served.url}/investigations`);
        if (id) printer.line(`  the run's investigation: ${served.url}/investigations/${id}`);
        printer.line("  Ctrl-C stops it.");
        await untilStopped();
        await served.close();
      } finally {
        await emulators?.stop();
      }
    });
}

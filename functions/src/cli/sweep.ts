import { Command, InvalidArgumentError } from "commander";
import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../adapters/pubsub/event-bus.js";
import { type SweepDeps, stallAfterMs, sweepStalled } from "../app/sweep.js";
import { loadConfig } from "../config/config.js";
import { createLogger } from "../platform/logger.js";
import { projectFromEnv } from "./project.js";

export interface Printer {
  line(text: string): void;
}

/** What the sweep works on; `close` releases the clients. */
export interface SweepBackend {
  deps: SweepDeps;
  close(): Promise<void>;
}

export function sweepBackendFromEnv(env: NodeJS.ProcessEnv = process.env): SweepBackend {
  const config = loadConfig({ env });
  const projectId = projectFromEnv(env);
  const db = createFirestore({ projectId, databaseId: config.firestore.databaseId });
  const bus = new PubSubEventBus(projectId);
  return {
    deps: {
      config,
      store: new FirestoreInvestigationStore(db),
      bus,
      logger: createLogger({ minSeverity: "WARNING" }),
      now: () => new Date(),
    },
    close: async () => {
      await bus.close();
      await db.terminate();
    },
  };
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

/** `ferret sweep`: the same sweep ingest runs every 15 minutes, on demand. */
export function sweepCommand(
  backend: () => SweepBackend = () => sweepBackendFromEnv(),
  printer: Printer = { line: (text) => process.stdout.write(`${text}\n`) },
): Command {
  return new Command("sweep")
    .description(
      "Mark unfinished investigations that stopped changing (no update for the total deadline plus an hour) as needs_human, so their findings reach a person. Ingest does this every 15 minutes; this runs it now.",
    )
    .option("--limit <n>", "most investigations to mark", positiveInt, 25)
    .option("--dry-run", "list what would be marked, change nothing", false)
    .addHelpText(
      "after",
      "\nFirestore and Pub/Sub: GOOGLE_CLOUD_PROJECT's, or the emulators at FIRESTORE_EMULATOR_HOST and PUBSUB_EMULATOR_HOST.",
    )
    .action(async (opts: { limit: number; dryRun: boolean }) => {
      const { deps, close } = backend();
      try {
        if (opts.dryRun) {
          const updatedBefore = new Date(deps.now().getTime() - stallAfterMs(deps)).toISOString();
          const stalled = await deps.store.listStalled({ updatedBefore, limit: opts.limit });
          printer.line(`${stalled.length} unfinished investigation(s) unchanged since ${updatedBefore}`);
          for (const inv of stalled) {
            printer.line(`${inv.id}  ${inv.status}  updated ${inv.updatedAt}  ${inv.finding.category}`);
          }
          return;
        }
        const report = await sweepStalled(deps, { limit: opts.limit });
        printer.line(
          `${report.stalled} unfinished investigation(s) unchanged since ${report.updatedBefore}; marked needs_human: ${report.marked.length}`,
        );
        for (const id of report.marked) printer.line(`needs_human  ${id}`);
      } finally {
        await close();
      }
    });
}

import { Command, InvalidArgumentError } from "commander";
import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../adapters/pubsub/event-bus.js";
import { type SweepDeps, sweepStalled } from "../app/sweep.js";
import { loadConfig } from "../config/config.js";
import { createLogger } from "../platform/logger.js";
import { openOperatorData } from "./project.js";

export interface Printer {
  line(text: string): void;
}

/** What the sweep works on; `close` releases the clients. */
export interface SweepBackend {
  deps: SweepDeps;
  close(): Promise<void>;
}

export async function sweepBackendFromEnv(
  options: { database?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<SweepBackend> {
  const config = loadConfig({ env });
  // The deployment's database is the one Terraform creates, unless told otherwise.
  const { projectId, databaseId } = await openOperatorData(env, options);
  const db = createFirestore({ projectId, databaseId });
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

/** `ferret sweep`: the same sweep the `sweep` function runs on Cloud Scheduler's request, on demand. */
export function sweepCommand(
  backend: (options: { database?: string }) => SweepBackend | Promise<SweepBackend> = (options) =>
    sweepBackendFromEnv(options),
  printer: Printer = { line: (text) => process.stdout.write(`${text}\n`) },
): Command {
  return new Command("sweep")
    .description(
      "Mark unfinished investigations that stopped changing (no update for the total deadline plus an hour) as needs_human, so their findings reach a person. Deployed, the sweep function does this every 15 minutes (Cloud Scheduler); this runs it now.",
    )
    .option("--limit <n>", "most investigations to mark", positiveInt, 25)
    .option("--dry-run", "list what would be marked, change nothing", false)
    .option("--database <id>", "the Firestore database, against a deployment (default: Terraform's, ferret)")
    .addHelpText(
      "after",
      '\nFirestore and Pub/Sub: GOOGLE_CLOUD_PROJECT\'s (in the database Terraform creates, "ferret", unless --database or FERRET_FIRESTORE_DATABASE names another), or the emulators at FIRESTORE_EMULATOR_HOST and PUBSUB_EMULATOR_HOST.',
    )
    .action(async (opts: { limit: number; dryRun: boolean; database?: string }) => {
      const { deps, close } = await backend(opts.database !== undefined ? { database: opts.database } : {});
      try {
        const report = await sweepStalled(deps, { limit: opts.limit, dryRun: opts.dryRun });
        printer.line(
          `${report.stalled.length} unfinished investigation(s) unchanged since ${report.updatedBefore}` +
            (opts.dryRun ? " (dry run: nothing changed)" : `; marked needs_human: ${report.marked.length}`),
        );
        if (opts.dryRun) for (const id of report.stalled) printer.line(`stalled  ${id}`);
        for (const id of report.marked) printer.line(`needs_human  ${id}`);
        for (const id of report.failed)
          printer.line(`failed  ${id} (see the log; the next sweep tries again)`);
        if (report.failed.length > 0) process.exitCode = 1;
      } finally {
        await close();
      }
    });
}

import { Command, InvalidArgumentError } from "commander";
import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreGovernorStore } from "../adapters/firestore/governor-store.js";
import { type QueueReport, queueReport } from "../app/queue-report.js";
import { type Config, loadConfig } from "../config/config.js";
import type { GovernorStore } from "../ports/governor-store.js";
import { OPERATOR_DATA_HELP, type OperatorDataOptions, openOperatorData } from "./project.js";
import { dataOptions } from "./report.js";
import type { Printer } from "./sweep.js";

const limitText = (n: number) => (n === 0 ? "no limit" : String(n));

export function printQueueReport(printer: Printer, r: QueueReport): void {
  const l = r.limits;
  printer.line(`queue depth        ${r.depth}${r.blockedBy ? `  (held back: ${r.blockedBy})` : ""}`);
  printer.line(`running            ${r.usage.running} of ${l.maxConcurrent}`);
  printer.line(`started, last hour ${r.usage.startedLastHour} of ${l.perHour}`);
  printer.line(`tokens, last hour  ${r.usage.tokensLastHour} of ${limitText(l.tokensPerHour)}`);
  printer.line(`tokens, last day   ${r.usage.tokensLastDay} of ${limitText(l.tokensPerDay)}`);
  printer.line(
    `grouping window    ${l.groupWindowMinutes === 0 ? "off" : `${l.groupWindowMinutes} min (same category and principal or resource)`}`,
  );
  if (r.next.length > 0) {
    printer.line("next up (severity, then age):");
    for (const e of r.next)
      printer.line(`  ${e.investigationId}  ${e.severity.padEnd(20)} ${e.eventTime}  ${e.category}`);
  }
  if (r.running.length > 0) {
    printer.line("running:");
    for (const x of r.running) printer.line(`  ${x.investigationId}  since ${x.admittedAt}`);
  }
  if (r.groups.length > 0) {
    printer.line("grouped findings:");
    for (const g of r.groups) printer.line(`  ${g.leadId}  + ${g.relatedCount} related`);
  }
}

export interface QueueBackend {
  governor: GovernorStore;
  config: Config;
  close(): Promise<void>;
}

export async function queueBackendFromEnv(
  options: OperatorDataOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<QueueBackend> {
  const config = loadConfig({ env });
  const data = await openOperatorData(env, options);
  const db = createFirestore({ projectId: data.projectId, databaseId: data.databaseId });
  return {
    governor: new FirestoreGovernorStore(db),
    config,
    close: async () => {
      await db.terminate();
      await data.stop();
    },
  };
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("expected a whole number, 0 or more");
  return n;
}

/** `ferret queue`: what the storm governor holds back, what runs, and what it grouped. */
export function queueCommand(
  backend: (options: OperatorDataOptions) => QueueBackend | Promise<QueueBackend> = (options) =>
    queueBackendFromEnv(options),
  printer: Printer = { line: (text) => process.stdout.write(`${text}\n`) },
  now: () => Date = () => new Date(),
): Command {
  return new Command("queue")
    .description(
      "Show the storm governor: queue depth and the findings next up (severity, then age), the limits with current usage (running, started and tokens in the last hour and day), and the investigations with the most findings grouped into them.",
    )
    .option("--next <n>", "queued findings to list", count, 10)
    .option("--groups <n>", "investigations with grouped findings to list", count, 10)
    .option("--json", "print the report as JSON", false)
    .option("--run <dir>", "a finished run's Firestore export (a directory under .ferret/runs, or latest)")
    .option("--database <id>", "the Firestore database, against a deployment (default: Terraform's, ferret)")
    .addHelpText(
      "after",
      `\nLimits come from the configuration (governor.*, FERRET_GOVERNOR_*).${OPERATOR_DATA_HELP}`,
    )
    .action(
      async (opts: { next: number; groups: number; json: boolean; run?: string; database?: string }) => {
        const { governor, config, close } = await backend(dataOptions(opts));
        try {
          const report = await queueReport(governor, config.governor, now(), opts);
          if (opts.json) printer.line(JSON.stringify(report, null, 2));
          else printQueueReport(printer, report);
        } finally {
          await close();
        }
      },
    );
}

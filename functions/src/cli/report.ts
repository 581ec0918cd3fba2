import { Command, InvalidArgumentError } from "commander";
import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../adapters/firestore/investigation-store.js";
import { type DecisionReport, decisionReport } from "../app/decision-report.js";
import { planningMetricLines, planningMetrics } from "../app/planning-metrics.js";
import type { Investigation } from "../domain/investigation.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import { OPERATOR_DATA_HELP, type OperatorDataOptions, openOperatorData } from "./project.js";

export interface Printer {
  line(text: string): void;
}

export interface ReportBackend {
  store: Pick<InvestigationStore, "listChangedSince">;
  close(): Promise<void>;
}

async function reportBackendFromEnv(
  options: OperatorDataOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ReportBackend> {
  const data = await openOperatorData(env, options);
  const db = createFirestore({ projectId: data.projectId, databaseId: data.databaseId });
  return {
    store: new FirestoreInvestigationStore(db),
    close: async () => {
      await db.terminate();
      await data.stop();
    },
  };
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

const pct = (rate: number | null) => (rate === null ? "—" : `${Math.round(rate * 100)}%`);
const secs = (s: number | null) => (s === null ? "—" : `${Math.round(s)}s`);

export function formatReport(report: DecisionReport, days: number): string[] {
  const lines = [
    `Last ${days} days: ${report.investigations} finished investigations, ${report.withVerdict} with a verdict, ${report.decided} decided by an analyst.`,
    `Agreement with ferret: ${pct(report.agreement.overall.rate)} (${report.agreement.overall.agreed}/${report.agreement.overall.decided})`,
    `Time to verdict: median ${secs(report.timeToVerdictSeconds.median)}, p90 ${secs(report.timeToVerdictSeconds.p90)}, max ${secs(report.timeToVerdictSeconds.max)} over ${report.timeToVerdictSeconds.count}`,
    "",
    "By category:",
    ...report.agreement.byCategory.map(
      (r) => `  ${pct(r.rate).padStart(4)}  ${r.agreed}/${r.decided}  ${r.key}`,
    ),
    "By model:",
    ...report.agreement.byModel.map(
      (r) => `  ${pct(r.rate).padStart(4)}  ${r.agreed}/${r.decided}  ${r.key}`,
    ),
    "",
    `Disputed verdicts (${report.disputed.length}):`,
    ...report.disputed.map(
      (d) =>
        `  ${d.investigationId}  ${d.category}: ferret ${d.ferretVerdict} → analyst ${d.analystVerdict ?? "?"} (${d.by}, ${d.at.slice(0, 10)}): ${JSON.stringify(d.reason.slice(0, 200))}`,
    ),
  ];
  // Reasons and names are other people's text: never let them drive the terminal.
  return lines.map((l) => l.replace(/\p{Cc}/gu, ""));
}

/** The --run / --database options as openOperatorData takes them. */
export function dataOptions(opts: { run?: string; database?: string }): OperatorDataOptions {
  return {
    ...(opts.run !== undefined ? { run: opts.run } : {}),
    ...(opts.database !== undefined ? { database: opts.database } : {}),
  };
}

/** `ferret report`: how analysts judged ferret's verdicts. */
export function reportCommand(
  backend: (options: OperatorDataOptions) => ReportBackend | Promise<ReportBackend> = (options) =>
    reportBackendFromEnv(options),
  printer: Printer = { line: (text) => process.stdout.write(`${text}\n`) },
  now: () => Date = () => new Date(),
): Command {
  return new Command("report")
    .description(
      "Summarize analysts' decisions on ferret's verdicts (agreement rate per category and per model, disputed verdicts, time to verdict) and the planning design's metrics (completion, first plan completing without revision, revision rate, mean revisions, first-try success, error recovery) against its targets.",
    )
    .option("--days <n>", "investigations finished in the last n days", positiveInt, 30)
    .option("--limit <n>", "most investigations read per status", positiveInt, 1_000)
    .option("--json", "print the report as JSON", false)
    .option("--run <dir>", "a finished run's Firestore export (a directory under .ferret/runs, or latest)")
    .option("--database <id>", "the Firestore database, against a deployment (default: Terraform's, ferret)")
    .addHelpText("after", OPERATOR_DATA_HELP)
    .action(async (opts: { days: number; limit: number; json: boolean; run?: string; database?: string }) => {
      const b = await backend(dataOptions(opts));
      try {
        const since = new Date(now().getTime() - opts.days * 86_400_000).toISOString();
        const found: Investigation[] = [];
        for (const status of ["concluded", "needs_human", "failed"] as const) {
          found.push(...(await b.store.listChangedSince({ status, updatedAfter: since, limit: opts.limit })));
        }
        const report = decisionReport(found);
        const planning = planningMetrics(found);
        if (opts.json) printer.line(JSON.stringify({ ...report, planning }, null, 2));
        else {
          for (const line of formatReport(report, opts.days)) printer.line(line);
          printer.line("");
          printer.line(`Planning (the design's metrics over these ${found.length} investigations):`);
          for (const line of planningMetricLines(planning)) printer.line(line);
        }
      } finally {
        await b.close();
      }
    });
}

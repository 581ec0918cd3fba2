import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { loadConfig } from "../config/config.js";
import { errorMessage, FerretError, InvalidInputError } from "../domain/errors.js";
import { fromRoot } from "../platform/paths.js";
import { consoleCommand } from "./console.js";
import { doctorCommand } from "./doctor.js";
import { evalCommand } from "./eval.js";
import { inspectFile, printInspectFile } from "./inspect.js";
import { investigate, NotInvestigatedError } from "./investigate.js";
import { memoriesCommand } from "./memories.js";
import { queueCommand } from "./queue.js";
import { reportCommand } from "./report.js";
import { loadScenario } from "./scenario.js";
import { sweepCommand } from "./sweep.js";
import { terminalText } from "./terminal-text.js";

const printer = { line: (text: string) => process.stdout.write(`${text}\n`) };

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

// Through .env() rather than a default read from process.env: commander checks .choices()
// on a value from the environment but never on a default, so FERRET_MODEL_PROVIDER=gemni
// would have reached the functions and failed there, out of sight.
const modelOption = () =>
  new Option("--model <provider>", "offline playbook model, Gemini, or Gemini when configured (auto)")
    .choices(["auto", "gemini", "offline"])
    .env("FERRET_MODEL_PROVIDER")
    .default("auto");

/**
 * The exit code of a finished run, and for one that ended without a conclusion its reason on
 * stderr (with --json too, where stdout is for machines): the function's own words, which the
 * workflow carried into the investigation's reason.
 */
function outcome(investigation: { status: string; reason?: string | undefined }): number {
  if (investigation.status === "concluded") return 0;
  const what = investigation.status === "failed" ? "failed" : `stopped as ${investigation.status}`;
  process.stderr.write(
    `ferret: the investigation ${what}: ${terminalText(investigation.reason ?? "no reason recorded")}\n`,
  );
  return 3;
}

const program = new Command()
  .name("ferret")
  .description("Investigate Google Cloud Security Command Center findings with a plan-execute-reflect agent.")
  .addHelpText(
    "after",
    "\nExit codes: 0 done (concluded), 2 bad input or configuration (the reason is printed), 3 the investigation ended without a conclusion or was not started (skipped by the ingest policy, dead-lettered), 4 eval verdicts wrong, 1 anything else.",
  )
  .exitOverride()
  .showHelpAfterError();

program
  .command("investigate")
  .description(
    "Run one investigation on the local stack (Firestore and Pub/Sub emulators, functions-framework servers, the workflow runner). [path] is a scenario directory or a notification.json; or --finding reads one of your SCC findings by name, and --bigquery queries your Cloud Logging sink (your application default credentials; state, events and the workflow stay on this machine).",
  )
  .argument("[path]", "scenario directory (notification.json, logs/, intel/) or a notification JSON file")
  .option(
    "--finding <name|n>",
    "an SCC finding's full name (organizations|folders|projects/<id>/sources/<number>[/locations/<location>]/findings/<1-32 letters or digits>), read from the SCC API with your application default credentials, used only if SCC answers with exactly that name; or, with a [path] holding several findings, the n-th of them only",
  )
  .option(
    "--bigquery <project.dataset>",
    "query your Cloud Logging sink's BigQuery dataset (partitioned tables) instead of local logs, with the production dry-run guard and scan cap (logs.maxBytesBilled); jobs run in GOOGLE_CLOUD_PROJECT, else the dataset's project",
  )
  .option("--json", "print the final investigation as JSON instead of progress", false)
  .addOption(modelOption())
  .option(
    "--keep-running",
    "leave the emulators and function servers running afterwards (Ctrl-C stops them)",
    false,
  )
  .option("--timeout <seconds>", "give up after this many seconds", positiveInt, 600)
  .option(
    "--logs <dir>",
    "log directory to query instead of the scenario's logs/: BigQuery-sink <table>.jsonl rows, or raw LogEntry JSON as `gcloud logging read --format=json` or a Cloud Storage sink writes it (converted; unknown files are refused by name)",
  )
  .action(
    async (
      path: string | undefined,
      opts: {
        json: boolean;
        model: "auto" | "gemini" | "offline";
        keepRunning: boolean;
        timeout: number;
        logs?: string;
        finding?: string;
        bigquery?: string;
      },
    ) => {
      // --finding is a name to read from SCC, or (a number, with a path) one finding of the file.
      const index =
        opts.finding !== undefined && /^\d+$/.test(opts.finding) ? Number(opts.finding) : undefined;
      if (index === 0) throw new InvalidInputError("--finding counts findings from 1");
      if (index !== undefined && path === undefined)
        throw new InvalidInputError(
          `--finding ${index} picks the n-th finding of a file: give the file, or an SCC finding's full name`,
        );
      const name = index === undefined ? opts.finding : undefined;
      const common = {
        json: opts.json,
        model: opts.model,
        keepRunning: opts.keepRunning,
        timeoutSeconds: opts.timeout,
        ...(opts.logs !== undefined ? { logsDir: opts.logs } : {}),
        ...(name !== undefined ? { finding: name } : {}),
        ...(opts.bigquery !== undefined ? { bigquery: opts.bigquery } : {}),
      };
      // A file of several findings is investigated finding by finding, each its own run.
      const total = path !== undefined && name === undefined ? loadScenario(path).findings.items.length : 1;
      const indices =
        index !== undefined ? [index - 1] : Array.from({ length: Math.max(total, 1) }, (_, i) => i);
      let exitCode = 0;
      for (const findingIndex of indices) {
        if (indices.length > 1 && !opts.json)
          printer.line(`\nferret: finding ${findingIndex + 1} of ${total}`);
        const report = await investigate(path, { ...common, findingIndex }, printer);
        if (opts.json) printer.line(JSON.stringify(report, null, 2));
        exitCode = Math.max(exitCode, outcome(report.investigation));
      }
      process.exitCode = exitCode;
    },
  );

program
  .command("demo")
  .description(
    "Investigate the bundled cryptomining scenario on the local stack, then click Confirm on the verdict card as a configured analyst (what `npm run demo` runs).",
  )
  .addOption(modelOption())
  .option("--json", "print the final investigation as JSON", false)
  .action(async (opts: { model: "auto" | "gemini" | "offline"; json: boolean }) => {
    const report = await investigate(
      fromRoot("examples/scenarios/cryptomining"),
      { json: opts.json, model: opts.model, keepRunning: false, timeoutSeconds: 600, click: true },
      printer,
    );
    if (opts.json) printer.line(JSON.stringify(report, null, 2));
    process.exitCode = outcome(report.investigation);
  });

program
  .command("eval")
  .description(
    "Run every scenario under <dir> (each with notification.json and expected.json) through the deployed workflow (workflows/investigate.yaml on the local runner, in process) and score verdicts, IOC recall, evidence recall, LLM calls, tokens and wall time, then the planning design's metrics over those investigations with its targets. Starts the emulators itself.",
  )
  .argument("[dir]", "a scenarios directory or one scenario", "examples/scenarios")
  .option("--json", "print the report as JSON", false)
  .addOption(modelOption())
  .action(async (dir: string, opts: { json: boolean; model: "auto" | "gemini" | "offline" }) => {
    const report = await evalCommand(dir, { json: opts.json, model: opts.model }, printer);
    process.exitCode = report.totals.verdictsRight === report.totals.scenarios ? 0 : 4;
  });

program
  .command("inspect")
  .description(
    "Show what ferret makes of each finding of a file without investigating: the normalized finding, its detector and catalog match, what was truncated, every IOC with its JSON path (and the values that are context, with the rule), internal endpoints, the resources touched and the ingest decision with its reason. Accepts a Pub/Sub notification, a ListFindings response (v1 or v2), `gcloud scc findings list --format=json` output, continuous-export and BigQuery export rows, a bare finding (the console's JSON tab), a Pub/Sub message or Cloud Logging entry holding one (Event Threat Detection's threatdetection.googleapis.com/detection entries included), or JSON Lines of these.",
  )
  .argument(
    "<path>",
    "a file of findings (JSON or JSON Lines), or a scenario directory holding notification.json",
  )
  .option(
    "--json",
    "print the report as JSON (one finding: its report; several: {file, container, findings})",
    false,
  )
  .action((path: string, opts: { json: boolean }) => {
    const report = inspectFile(path, { json: opts.json, config: loadConfig() });
    if (opts.json)
      printer.line(JSON.stringify(report.findings.length === 1 ? report.findings[0] : report, null, 2));
    else printInspectFile(printer, report);
  });

program.addCommand(memoriesCommand());
program.addCommand(sweepCommand());
program.addCommand(queueCommand());
program.addCommand(doctorCommand());
program.addCommand(reportCommand());
program.addCommand(consoleCommand());

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // commander printed the message already; --help and --version end here too.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof NotInvestigatedError) {
    process.stderr.write(`ferret: ${terminalText(error.message)}\n`);
    process.exitCode = error.exitCode;
  } else {
    const retry = error instanceof FerretError ? (error.retryable ? " (retrying may help)" : "") : "";
    // An error message can quote the input that caused it (a finding field, a log line).
    process.stderr.write(`ferret: ${terminalText(errorMessage(error))}${retry}\n`);
    process.exitCode =
      error instanceof FerretError && (error.code === "invalid_input" || error.code === "config") ? 2 : 1;
  }
}

import { Command, InvalidArgumentError, Option } from "commander";
import { errorMessage, FerretError } from "../domain/errors.js";
import { fromRoot } from "../platform/paths.js";
import { evalCommand } from "./eval.js";
import { investigate } from "./investigate.js";
import { memoriesCommand } from "./memories.js";
import { reportCommand } from "./report.js";
import { sweepCommand } from "./sweep.js";

const printer = { line: (text: string) => process.stdout.write(`${text}\n`) };

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

const modelOption = () =>
  new Option("--model <provider>", "offline playbook model, Gemini, or Gemini when configured (auto)")
    .choices(["auto", "gemini", "offline"])
    .default(process.env.FERRET_MODEL_PROVIDER ?? "auto");

const program = new Command()
  .name("ferret")
  .description("Investigate Google Cloud Security Command Center findings with a plan-execute-reflect agent.")
  .showHelpAfterError();

program
  .command("investigate")
  .description(
    "Run one investigation on the local stack (Firestore and Pub/Sub emulators, functions-framework servers, the workflow runner). <path> is a scenario directory or a notification.json.",
  )
  .argument("<path>", "scenario directory (notification.json, logs/, intel/) or a notification JSON file")
  .option("--json", "print the final investigation as JSON instead of progress", false)
  .addOption(modelOption())
  .option(
    "--keep-running",
    "leave the emulators and function servers running afterwards (Ctrl-C stops them)",
    false,
  )
  .option("--timeout <seconds>", "give up after this many seconds", positiveInt, 600)
  .action(
    async (
      path: string,
      opts: { json: boolean; model: "auto" | "gemini" | "offline"; keepRunning: boolean; timeout: number },
    ) => {
      const report = await investigate(
        path,
        { json: opts.json, model: opts.model, keepRunning: opts.keepRunning, timeoutSeconds: opts.timeout },
        printer,
      );
      if (opts.json) printer.line(JSON.stringify(report, null, 2));
      process.exitCode = report.investigation.status === "concluded" ? 0 : 3;
    },
  );

program
  .command("demo")
  .description("Investigate the bundled cryptomining scenario on the local stack (what `npm run demo` runs).")
  .addOption(modelOption())
  .option("--json", "print the final investigation as JSON", false)
  .action(async (opts: { model: "auto" | "gemini" | "offline"; json: boolean }) => {
    const report = await investigate(
      fromRoot("examples/scenarios/cryptomining"),
      { json: opts.json, model: opts.model, keepRunning: false, timeoutSeconds: 600 },
      printer,
    );
    if (opts.json) printer.line(JSON.stringify(report, null, 2));
    process.exitCode = report.investigation.status === "concluded" ? 0 : 3;
  });

program
  .command("eval")
  .description(
    "Run every scenario under <dir> (each with notification.json and expected.json) and score verdicts, IOC recall, evidence recall, LLM calls, tokens and wall time. Starts the emulators itself.",
  )
  .argument("[dir]", "a scenarios directory or one scenario", "examples/scenarios")
  .option("--json", "print the report as JSON", false)
  .addOption(modelOption())
  .action(async (dir: string, opts: { json: boolean; model: "auto" | "gemini" | "offline" }) => {
    const report = await evalCommand(dir, { json: opts.json, model: opts.model }, printer);
    process.exitCode = report.totals.verdictsRight === report.totals.scenarios ? 0 : 4;
  });

program.addCommand(memoriesCommand());
program.addCommand(sweepCommand());
program.addCommand(reportCommand());

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const retry = error instanceof FerretError ? (error.retryable ? " (retrying may help)" : "") : "";
  process.stderr.write(`ferret: ${errorMessage(error)}${retry}\n`);
  process.exitCode = error instanceof FerretError && error.code === "invalid_input" ? 2 : 1;
}

import { loadavg } from "node:os";
import { join } from "node:path";
import { createPubSub } from "../functions/src/adapters/pubsub/client.js";
import { ALREADY_EXISTS, grpcCode } from "../functions/src/adapters/pubsub/errors.js";
import { PubSubEventBus } from "../functions/src/adapters/pubsub/event-bus.js";
import { errorMessage } from "../functions/src/domain/errors.js";
import { TOPICS } from "../functions/src/platform/topics.js";
import { compareOrchestrations } from "./agent/compare.js";
import { parseBenchArgs, type Section } from "./args.js";
import { measureBudgets } from "./budgets/measure.js";
import { printBudgets } from "./budgets/report.js";
import { measureColdStart } from "./coldstart/section.js";
import { measureIngestLatency } from "./ingest/latency.js";
import { measureIngest } from "./ingest/throughput.js";
import { benchEmulators } from "./lib/emulators.js";
import { type BenchScenario, listScenarios } from "./lib/scenarios.js";
import { measurePipeline } from "./pipeline/section.js";
import { printAgent } from "./report/agent.js";
import { printColdStart } from "./report/coldstart.js";
import { printIngest } from "./report/ingest.js";
import { printPipeline } from "./report/pipeline.js";
import { printTracing } from "./report/tracing.js";
import { type BenchResults, newResults, writeResults } from "./results.js";
import { measureTracingOverhead } from "./tracing/overhead.js";

/**
 * `npm run bench`: five measurements in one run, printed as tables and written as JSON
 * (bench/results/<time>.json and latest.json). docs/benchmarks.md explains every number.
 */
const options = parseBenchArgs(process.argv.slice(2));
const scenarios: BenchScenario[] = listScenarios(options.scenarios, options.set);
if (scenarios.length === 0)
  throw new Error("no complete scenario (notification, logs, intel, expected.json) found");
const results: BenchResults = newResults(
  options,
  scenarios.map((s) => s.name),
);
const progress = (line: string) => process.stderr.write(`${line}\n`);
const started = performance.now();
process.once("SIGINT", () => process.exit(130));

progress(`ferret bench: ${scenarios.length} scenarios, sections ${options.sections.join(", ")}`);
const emulators = await benchEmulators();
const pubsub = createPubSub({ projectId: "ferret-bench-events" });
try {
  await pubsub.createTopic(TOPICS.investigationEvents);
} catch (error) {
  if (grpcCode(error) !== ALREADY_EXISTS) throw error;
}
const bus = new PubSubEventBus(pubsub);

async function section(name: Section, work: () => Promise<void>): Promise<void> {
  if (!options.sections.includes(name)) return;
  progress(`\n[${name}]`);
  const t = performance.now();
  try {
    await work();
  } catch (error) {
    results.errors.push({ section: name, message: errorMessage(error) });
    progress(`  FAILED: ${errorMessage(error)}`);
  }
  results.sectionMs[name] = Math.round(performance.now() - t);
}

try {
  await section("agent", async () => {
    results.agent = await compareOrchestrations({ scenarios, latencyMs: options.latencyMs, bus, progress });
  });
  await section("pipeline", async () => {
    results.pipeline = await measurePipeline({
      scenarios,
      stackRuns: options.pipelineRuns,
      storeRuns: options.storeRuns,
      runnerExecutions: options.runnerExecutions,
      workDir: join(emulators.workDir, "pipeline"),
      bus,
      progress,
    });
  });
  await section("coldstart", async () => {
    const scenario = scenarios.find((s) => s.name === "cryptomining") ?? (scenarios[0] as BenchScenario);
    results.coldStart = await measureColdStart({
      workDir: emulators.workDir,
      scenario,
      importSamples: options.importSamples,
      progress,
    });
  });
  await section("ingest", async () => {
    const inProcess = await measureIngestLatency({
      scenario: scenarios[0] as BenchScenario,
      messages: 40,
      bus,
    });
    const measured = await measureIngest({
      scenarios,
      notifications: options.notifications,
      workDir: emulators.workDir,
      progress,
    });
    results.ingest = { ...measured, inProcess };
  });
  await section("tracing", async () => {
    results.tracing = await measureTracingOverhead({
      scenarios,
      rounds: options.tracingRounds,
      bus,
      progress,
    });
  });
} finally {
  await bus.close();
  await pubsub.close();
  await emulators.stop();
}

results.finishedAt = new Date().toISOString();
results.durationMs = Math.round(performance.now() - started);
results.machine.loadAverageEnd = loadavg().map((l) => Math.round(l * 100) / 100);
const file = writeResults(results, options.outDir);

const out: string[] = [];
if (results.agent) out.push(printAgent(results.agent));
if (results.pipeline) out.push(printPipeline(results.pipeline));
if (results.coldStart) out.push(printColdStart(results.coldStart));
if (results.ingest) out.push(printIngest(results.ingest, results.ingest.inProcess));
if (results.tracing) out.push(printTracing(results.tracing));
if (options.sections.includes("agent")) out.push(printBudgets(await measureBudgets()));
for (const e of results.errors) out.push(`SECTION ${e.section} FAILED: ${e.message}`);
out.push(
  `bench finished in ${Math.round(results.durationMs / 1000)} s on ${results.machine.cpus} CPUs (load ${results.machine.loadAverageStart.join("/")} → ${results.machine.loadAverageEnd.join("/")}); results: ${file}`,
);
process.stdout.write(`\n${out.join("\n\n")}\n`);
const ferretWrong = results.agent ? !results.agent.totals.ferretAllCorrect : false;
process.exit(results.errors.length > 0 || ferretWrong ? 1 : 0);

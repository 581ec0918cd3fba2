import type { EventBus } from "../../functions/src/ports/event-bus.js";
import type { BenchScenario } from "../lib/scenarios.js";
import { measureRunner, type RunnerMicro } from "./runner-micro.js";
import { runThroughStack, type StackSection } from "./stack-run.js";
import { measureStoreCost, type StoreCostSection } from "./store-cost.js";

/** Section 2: pipeline overhead with model time excluded (offline model, zero latency). */
export interface PipelineSection {
  stack: StackSection;
  storeCost: StoreCostSection;
  runnerMicro: RunnerMicro;
}

export async function measurePipeline(options: {
  scenarios: readonly BenchScenario[];
  stackRuns: number;
  storeRuns: number;
  runnerExecutions: number;
  workDir: string;
  bus: EventBus;
  progress: (line: string) => void;
}): Promise<PipelineSection> {
  options.progress("  workflow runner with instant functions");
  const runnerMicro = await measureRunner(options.runnerExecutions);
  options.progress("  Firestore and Pub/Sub time inside the operations (in process)");
  const storeCost = await measureStoreCost({
    scenarios: options.scenarios,
    runs: options.storeRuns,
    bus: options.bus,
  });
  const stack = await runThroughStack({
    scenarios: options.scenarios,
    runs: options.stackRuns,
    workDir: options.workDir,
    progress: options.progress,
  });
  return { stack, storeCost, runnerMicro };
}

import { parseArgs } from "node:util";

export const SECTIONS = ["agent", "pipeline", "coldstart", "ingest", "tracing"] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchOptions {
  /** Simulated model latency per generate call in section 1. */
  latencyMs: number;
  /** Scenario names; empty = every scenario of the set. */
  scenarios: string[];
  /** Which scenario directory: examples/scenarios (public) or examples/held-back (measured on request). */
  set: "public" | "held-back";
  sections: Section[];
  /** Investigations per scenario through the local stack (section 2). */
  pipelineRuns: number;
  /** In-process drives per scenario for the Firestore/Pub/Sub timing (section 2). */
  storeRuns: number;
  /** Executions of the YAML against instant functions (section 2). */
  runnerExecutions: number;
  /** Fresh processes per import-time measurement (section 3). */
  importSamples: number;
  /** Unique findings published through ingest (section 4). */
  notifications: number;
  /** Rounds of every scenario with telemetry off and on (section 5). */
  tracingRounds: number;
  outDir: string;
}

const USAGE = `npm run bench -- [options]
  --latency-ms N         simulated model latency per call in section 1 (default 800)
  --scenarios a,b        only these scenarios (default: all of the set)
  --set public|held-back examples/scenarios (default) or the held-back examples/held-back
  --only s1,s2           sections to run: ${SECTIONS.join(", ")} (default: all)
  --pipeline-runs N      investigations per scenario through the local stack (default 3)
  --store-runs N         in-process drives per scenario for store timing (default 3)
  --runner-executions N  workflow runner microbenchmark executions (default 200)
  --import-samples N     fresh processes per import-time measurement (default 3)
  --notifications N      unique findings through ingest (default 200)
  --tracing-rounds N     rounds of every scenario with telemetry off and on (default 3)
  --out DIR              where results go (default bench/results)`;

export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      "latency-ms": { type: "string", default: "800" },
      scenarios: { type: "string", default: "" },
      set: { type: "string", default: "public" },
      only: { type: "string", default: SECTIONS.join(",") },
      "pipeline-runs": { type: "string", default: "3" },
      "store-runs": { type: "string", default: "3" },
      "runner-executions": { type: "string", default: "200" },
      "import-samples": { type: "string", default: "3" },
      notifications: { type: "string", default: "200" },
      "tracing-rounds": { type: "string", default: "3" },
      out: { type: "string", default: "bench/results" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const int = (name: string, raw: string, min: number): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${name} must be an integer >= ${min}, got "${raw}"\n${USAGE}`);
    return n;
  };
  const sections = values.only
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of sections) {
    if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`unknown section "${s}"\n${USAGE}`);
  }
  if (values.set !== "public" && values.set !== "held-back")
    throw new Error(`unknown scenario set "${values.set}"\n${USAGE}`);
  return {
    latencyMs: int("latency-ms", values["latency-ms"], 0),
    set: values.set,
    scenarios: values.scenarios
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    sections: sections as Section[],
    pipelineRuns: int("pipeline-runs", values["pipeline-runs"], 1),
    storeRuns: int("store-runs", values["store-runs"], 1),
    runnerExecutions: int("runner-executions", values["runner-executions"], 1),
    importSamples: int("import-samples", values["import-samples"], 1),
    notifications: int("notifications", values.notifications, 1),
    tracingRounds: int("tracing-rounds", values["tracing-rounds"], 1),
    outDir: values.out,
  };
}

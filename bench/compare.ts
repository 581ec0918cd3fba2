import { readFileSync } from "node:fs";
import { fromRoot } from "../functions/src/platform/paths.js";
import { table } from "./lib/table.js";
import type { BenchResults } from "./results.js";

/**
 * Compares two bench result files on the headline numbers:
 *   node_modules/.bin/node --import tsx bench/compare.ts <old.json> [new.json]
 * (new defaults to bench/results/latest.json). Lower is better except where marked ↑.
 */
type Metric = [label: string, read: (r: BenchResults) => number | undefined];

const fn = (r: BenchResults, name: string) => r.pipeline?.stack.functions.find((f) => f.fn === name);
const imp = (r: BenchResults, variant: string) =>
  r.coldStart?.imports.find((i) => i.variant.startsWith(variant));

const METRICS: Metric[] = [
  ["agent: ferret LLM calls", (r) => r.agent?.totals.ferret.llmCalls],
  [
    "agent: ferret tokens (in+out)",
    (r) => r.agent && r.agent.totals.ferret.inputTokens + r.agent.totals.ferret.outputTokens,
  ],
  ["agent: ferret wall ms", (r) => r.agent?.totals.ferret.wallMs],
  ["agent: baseline wall ms", (r) => r.agent?.totals.baseline.wallMs],
  ["agent: wall ferret/baseline", (r) => r.agent?.totals.vsBaseline?.ferret.wallMs],
  ["agent: react LLM calls", (r) => r.agent?.totals.react?.llmCalls],
  ["agent: react wall ms", (r) => r.agent?.totals.react?.wallMs],
  ["agent: critical-path bound ms", (r) => r.agent?.totals.criticalPathMs],
  ["pipeline: e2e warm median ms", (r) => r.pipeline?.stack.endToEnd.warm.median],
  ["pipeline: e2e cold median ms", (r) => r.pipeline?.stack.endToEnd.cold.median],
  ["pipeline: planner round trip median ms", (r) => fn(r, "planner")?.roundTripMs.median],
  ["pipeline: stepExecutor round trip median ms", (r) => fn(r, "stepExecutor")?.roundTripMs.median],
  ["pipeline: reflector round trip median ms", (r) => fn(r, "reflector")?.roundTripMs.median],
  ["pipeline: concluder round trip median ms", (r) => fn(r, "concluder")?.roundTripMs.median],
  ["pipeline: in-process drive median ms", (r) => r.pipeline?.storeCost.perInvestigation.wallMs.median],
  [
    "pipeline: Firestore calls per investigation",
    (r) => r.pipeline?.storeCost.perInvestigation.storeCalls.median,
  ],
  ["pipeline: runner ms per call (micro)", (r) => r.pipeline?.runnerMicro.perCallMs],
  ["cold: import source (tsx) ms", (r) => imp(r, "source")?.importMs?.median],
  ["cold: import dist ms", (r) => imp(r, "dist")?.importMs?.median],
  ["cold: full bundle bytes", (r) => r.coldStart?.bundle.full?.bytes],
  ["ingest: unique msgs/s ↑", (r) => r.ingest?.unique.messagesPerSecond],
  ["ingest: with duplicates msgs/s ↑", (r) => r.ingest?.duplicates.messagesPerSecond],
];

const [oldPath, newPath = fromRoot("bench/results/latest.json")] = process.argv.slice(2);
if (!oldPath) {
  process.stderr.write("usage: bench/compare.ts <old.json> [new.json]\n");
  process.exit(2);
}
const load = (path: string) => JSON.parse(readFileSync(path, "utf8")) as BenchResults;
const before = load(oldPath);
const after = load(newPath);
const cell = (v: number | undefined) => (v === undefined ? "–" : v);
process.stdout.write(
  `${before.git.commit.slice(0, 10)} (${before.startedAt}) → ${after.git.commit.slice(0, 10)} (${after.startedAt})\n\n`,
);
process.stdout.write(
  `${table(
    ["metric", "before", "after", "change"],
    METRICS.map(([label, read]) => {
      const a = read(before);
      const b = read(after);
      const change =
        a !== undefined && b !== undefined && a !== 0 ? `${Math.round(((b - a) / a) * 100)}%` : "–";
      return [label, cell(a), cell(b), change];
    }),
  )}\n`,
);

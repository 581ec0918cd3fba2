import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join, resolve } from "node:path";
import type { AgentSection } from "./agent/compare.js";
import type { BenchOptions } from "./args.js";
import type { ColdStartSection } from "./coldstart/section.js";
import type { IngestLatency } from "./ingest/latency.js";
import type { IngestSection } from "./ingest/throughput.js";
import type { PipelineSection } from "./pipeline/section.js";
import type { TracingSection } from "./tracing/overhead.js";

/** What `npm run bench` writes: one file per run plus latest.json, to diff between commits. */
export interface BenchResults {
  schema: 1;
  startedAt: string;
  finishedAt?: string;
  durationMs?: number;
  git: { commit: string; dirtyFiles: number };
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    node: string;
    platform: string;
    /** 1/5/15-minute load averages; other work on the machine shows here. */
    loadAverageStart: number[];
    loadAverageEnd?: number[];
  };
  options: BenchOptions;
  scenarios: string[];
  sectionMs: Partial<Record<string, number>>;
  agent?: AgentSection;
  pipeline?: PipelineSection;
  coldStart?: ColdStartSection;
  ingest?: IngestSection & { inProcess?: IngestLatency };
  tracing?: TracingSection;
  errors: Array<{ section: string; message: string }>;
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "";
  }
}

export function newResults(options: BenchOptions, scenarios: string[]): BenchResults {
  const status = git(["status", "--porcelain"]);
  return {
    schema: 1,
    startedAt: new Date().toISOString(),
    git: {
      commit: git(["rev-parse", "HEAD"]) || "unknown",
      dirtyFiles: status ? status.split("\n").length : 0,
    },
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      loadAverageStart: loadavg().map((l) => Math.round(l * 100) / 100),
    },
    options,
    scenarios,
    sectionMs: {},
    errors: [],
  };
}

/** Writes <outDir>/<timestamp>.json and <outDir>/latest.json; returns the first path. */
export function writeResults(results: BenchResults, outDir: string): string {
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const stamp = results.startedAt.replace(/[:.]/g, "-");
  const text = `${JSON.stringify(results, null, 2)}\n`;
  const file = join(dir, `${stamp}.json`);
  writeFileSync(file, text);
  writeFileSync(join(dir, "latest.json"), text);
  return file;
}

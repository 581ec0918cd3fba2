import { pathToFileURL } from "node:url";
import { fromRoot } from "../../functions/src/platform/paths.js";
import { type Summary, summarize } from "../lib/stats.js";
import { lastJson, run } from "./spawn.js";

/** How long a fresh Node process takes to import the functions' module graph. */
export interface ImportTime {
  variant: string;
  /** `await import(index)` alone. */
  importMs?: Summary;
  /** Process start (performance.timeOrigin) until the import resolved: Node boot, loaders, import. */
  processToReadyMs?: Summary;
  error?: string;
}

const PROBE = [
  "const t0 = performance.now();",
  "await import(process.env.BENCH_MODULE_URL);",
  "const t1 = performance.now();",
  "process.stdout.write(JSON.stringify({ importMs: t1 - t0, readyMs: t1 }) + '\\n');",
  "process.exit(0);",
].join(" ");

export async function measureImport(options: {
  variant: string;
  modulePath: string;
  /** Extra node flags, e.g. ["--import", "tsx"]. */
  nodeArgs: string[];
  cwd: string;
  samples: number;
  env: NodeJS.ProcessEnv;
}): Promise<ImportTime> {
  const imports: number[] = [];
  const ready: number[] = [];
  for (let i = 0; i < options.samples; i++) {
    const out = await run(process.execPath, [...options.nodeArgs, "--input-type=module", "-e", PROBE], {
      cwd: options.cwd,
      env: { ...options.env, BENCH_MODULE_URL: pathToFileURL(options.modulePath).href },
      timeoutMs: 120_000,
    });
    const parsed = lastJson<{ importMs: number; readyMs: number }>(out.stdout);
    if (out.code !== 0 || !parsed) {
      const why = out.stderr.trim().split("\n").slice(-3).join(" | ").slice(0, 400);
      return { variant: options.variant, error: `exit ${out.code}: ${why}` };
    }
    imports.push(parsed.importMs);
    ready.push(parsed.readyMs);
  }
  return { variant: options.variant, importMs: summarize(imports), processToReadyMs: summarize(ready) };
}

export const SOURCE_ENTRY = fromRoot("functions/src/index.ts");

/** One direct dependency imported alone in a fresh process: what it adds to every cold start. */
export interface PackageImport {
  name: string;
  importMs?: number;
  error?: string;
}

export async function measurePackageImports(options: {
  packages: readonly string[];
  env: NodeJS.ProcessEnv;
}): Promise<PackageImport[]> {
  const out: PackageImport[] = [];
  for (const name of options.packages) {
    const probe = PROBE.replace("process.env.BENCH_MODULE_URL", JSON.stringify(name));
    const result = await run(process.execPath, ["--input-type=module", "-e", probe], {
      cwd: fromRoot(),
      env: options.env,
      timeoutMs: 60_000,
    });
    const parsed = lastJson<{ importMs: number }>(result.stdout);
    out.push(
      parsed
        ? { name, importMs: Math.round(parsed.importMs) }
        : { name, error: result.stderr.trim().split("\n").slice(-1).join("").slice(0, 200) },
    );
  }
  return out.sort((a, b) => (b.importMs ?? 0) - (a.importMs ?? 0));
}

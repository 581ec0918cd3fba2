import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
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

/**
 * functions-framework's entry (main.js) requires its server, and with it express, before it
 * loads the user's code, so in a deployed instance express is in memory before any function
 * module loads. The probes load it first, outside the timed part, so a function that uses
 * express itself (the console) is not charged for the framework's copy. ferret and
 * functions-framework resolve the same express (one copy in node_modules, checked below).
 */
const FRAMEWORK_PRELOAD = "await import('express');";

/** Whether functions-framework resolves the same express as ferret's own code (one copy). */
export function frameworkSharesExpress(): boolean {
  const fromFramework = createRequire(
    fromRoot("node_modules/@google-cloud/functions-framework/package.json"),
  );
  const fromFerret = createRequire(fromRoot("package.json"));
  return fromFramework.resolve("express") === fromFerret.resolve("express");
}

/**
 * A function's cold import: index (which registers every role's function and loads the
 * roles' definitions) plus its own role's code and handler (entry/role-handler.ts
 * loadHandler), as its first request loads them. Then, apart, the runtime its first call
 * builds (compose.ts with the role's needs: the cloud clients are constructed, nothing is
 * connected), which the first request pays on top of the import.
 */
const ENTRY_PROBE = [
  FRAMEWORK_PRELOAD,
  "const t0 = performance.now();",
  "await import(process.env.BENCH_MODULE_URL);",
  "const { ROLES } = await import(process.env.BENCH_ROLES_URL);",
  "const role = ROLES.find((r) => r.name === process.env.BENCH_ENTRY_POINT);",
  "await (await import(process.env.BENCH_ROLE_HANDLER_URL)).loadHandler(role);",
  "const t1 = performance.now();",
  "const { buildRuntime } = await import(process.env.BENCH_COMPOSE_URL);",
  "await buildRuntime(process.env, (await role.definition()).needs);",
  "const t2 = performance.now();",
  "process.stdout.write(JSON.stringify({ importMs: t1 - t0, runtimeMs: t2 - t1 }) + '\\n');",
  "process.exit(0);",
].join(" ");

/**
 * The console's cold import: index plus console/function (its own loader in index.ts), then
 * apart the runtime its first request builds (console/compose.ts: Firestore and Pub/Sub
 * clients, constructed, nothing connected).
 */
const CONSOLE_PROBE = [
  FRAMEWORK_PRELOAD,
  "const t0 = performance.now();",
  "await import(process.env.BENCH_MODULE_URL);",
  "const m = await import(process.env.BENCH_CONSOLE_URL);",
  "m.consoleFunction();",
  "const t1 = performance.now();",
  "const { buildConsoleRuntime } = await import(process.env.BENCH_CONSOLE_COMPOSE_URL);",
  "buildConsoleRuntime({ ...process.env, FERRET_CONSOLE_AUTH: 'local' });",
  "const t2 = performance.now();",
  "process.stdout.write(JSON.stringify({ importMs: t1 - t0, runtimeMs: t2 - t1 }) + '\\n');",
  "process.exit(0);",
].join(" ");

/** The web console's entry point: not a role, it has its own loader in index.ts. */
export const CONSOLE_ENTRY_POINT = "console";

/** The target for a function's cold import (issue 19), checked on the deployed (dist) build. */
export const COLD_IMPORT_TARGET_MS = 300;

export interface EntryImportTime {
  entryPoint: string;
  variant: string;
  importMs?: Summary;
  /** Building the function's runtime after the import: what its first request adds. */
  runtimeMs?: Summary;
  error?: string;
}

export async function measureEntryImport(options: {
  entryPoint: string;
  variant: string;
  /** index.js/ts of the variant; roles/ and entry/ sit next to it. */
  modulePath: string;
  nodeArgs: string[];
  cwd: string;
  samples: number;
  env: NodeJS.ProcessEnv;
}): Promise<EntryImportTime> {
  const ext = extname(options.modulePath);
  const src = (path: string) => pathToFileURL(join(dirname(options.modulePath), `${path}${ext}`)).href;
  const times: number[] = [];
  const runtimes: number[] = [];
  for (let i = 0; i < options.samples; i++) {
    const isConsole = options.entryPoint === CONSOLE_ENTRY_POINT;
    const consoleDir = join(dirname(options.modulePath), "console");
    const probe = (isConsole ? CONSOLE_PROBE : ENTRY_PROBE).replace(
      FRAMEWORK_PRELOAD,
      frameworkSharesExpress() ? FRAMEWORK_PRELOAD : "",
    );
    const out = await run(process.execPath, [...options.nodeArgs, "--input-type=module", "-e", probe], {
      cwd: options.cwd,
      env: {
        ...options.env,
        BENCH_MODULE_URL: pathToFileURL(options.modulePath).href,
        BENCH_CONSOLE_URL: pathToFileURL(join(consoleDir, `function${extname(options.modulePath)}`)).href,
        BENCH_CONSOLE_COMPOSE_URL: pathToFileURL(join(consoleDir, `compose${extname(options.modulePath)}`))
          .href,
        BENCH_ROLES_URL: src("roles/index"),
        BENCH_ROLE_HANDLER_URL: src("entry/role-handler"),
        BENCH_COMPOSE_URL: src("entry/compose"),
        BENCH_ENTRY_POINT: options.entryPoint,
      },
      timeoutMs: 120_000,
    });
    const parsed = lastJson<{ importMs: number; runtimeMs: number }>(out.stdout);
    if (out.code !== 0 || !parsed) {
      const why = out.stderr.trim().split("\n").slice(-3).join(" | ").slice(0, 400);
      return { entryPoint: options.entryPoint, variant: options.variant, error: `exit ${out.code}: ${why}` };
    }
    times.push(parsed.importMs);
    runtimes.push(parsed.runtimeMs);
  }
  return {
    entryPoint: options.entryPoint,
    variant: options.variant,
    importMs: summarize(times),
    runtimeMs: summarize(runtimes),
  };
}

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
  const time = async (specifiers: readonly string[]) => {
    const probe = PROBE.replace(
      "await import(process.env.BENCH_MODULE_URL);",
      specifiers.map((s) => `await import(${JSON.stringify(s)});`).join(" "),
    );
    const result = await run(process.execPath, ["--input-type=module", "-e", probe], {
      cwd: fromRoot(),
      env: options.env,
      timeoutMs: 60_000,
    });
    const parsed = lastJson<{ importMs: number }>(result.stdout);
    return parsed
      ? { importMs: Math.round(parsed.importMs) }
      : { error: result.stderr.trim().split("\n").slice(-1).join("").slice(0, 200) };
  };
  const out: PackageImport[] = [];
  for (const name of options.packages) {
    const root = await time([name]);
    // A package whose root cannot be imported (the MCP SDK's "." names a file it does not ship)
    // is timed through the subpaths ferret imports.
    const subpaths = "error" in root ? importedSubpaths(name) : [];
    const timed = subpaths.length > 0 ? await time(subpaths) : root;
    out.push({
      name: subpaths.length > 0 ? `${name} (the ${subpaths.length} subpaths ferret imports)` : name,
      ...timed,
    });
  }
  return out.sort((a, b) => (b.importMs ?? 0) - (a.importMs ?? 0));
}

/** The subpaths of `name` that ferret's deployed code imports (`from "name/…"`). */
function importedSubpaths(name: string): string[] {
  const found = new Set<string>();
  const pattern = new RegExp(`from "(${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/[^"]+)"`, "g");
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts"))
        for (const m of readFileSync(path, "utf8").matchAll(pattern)) if (m[1]) found.add(m[1]);
    }
  };
  walk(fromRoot("functions", "src"));
  return [...found].sort();
}

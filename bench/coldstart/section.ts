import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureTopology } from "../../functions/src/local/pubsub-setup.js";
import { fromRoot } from "../../functions/src/platform/paths.js";
import { freshProject } from "../lib/emulators.js";
import type { BenchScenario } from "../lib/scenarios.js";
import { type BundleReport, bundleFunctions } from "./bundle.js";
import { buildDeployTree, type DeployTree } from "./deploy-tree.js";
import {
  CONSOLE_ENTRY_POINT,
  type EntryImportTime,
  type ImportTime,
  measureEntryImport,
  measureImport,
  measurePackageImports,
  type PackageImport,
  SOURCE_ENTRY,
} from "./import-time.js";
import { ALL_ENTRY_POINTS, type ServerColdStart, serverColdStart } from "./servers.js";

export interface ColdStartSection {
  build: Omit<DeployTree, "root" | "entry"> & { built: boolean };
  bundle: BundleReport;
  /** One module graph (functions/src/index.ts) serves every entry point. */
  imports: ImportTime[];
  /** Per entry point: index plus the modules its first request loads (the target: under 300 ms). */
  entryImports: EntryImportTime[];
  /** Direct dependencies in the module graph, each imported alone. */
  packages: PackageImport[];
  servers: ServerColdStart[];
}

export async function measureColdStart(options: {
  workDir: string;
  scenario: BenchScenario;
  importSamples: number;
  progress: (line: string) => void;
}): Promise<ColdStartSection> {
  const projectId = freshProject("cold");
  // Dead-letter topics exist, so the event functions' probe messages are dead-lettered, not retried.
  await ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GOOGLE_CLOUD_PROJECT: projectId,
    FERRET_MODEL_PROVIDER: "offline",
    FERRET_DUCKDB_DIR: options.scenario.logsDir,
    FERRET_STIX_BUNDLE: options.scenario.stixBundle,
    FERRET_WORKFLOWS_URL: "http://127.0.0.1:9",
    FERRET_CHAT_FILE: join(options.workDir, "cold-chat.jsonl"),
  };
  options.progress("  building the deploy tree (tsc -p tsconfig.build.json)");
  const tree = await buildDeployTree(join(options.workDir, "deploy"));
  options.progress(`  bundling with esbuild`);
  const bundle = await bundleFunctions(join(tree.root, "bundle"));

  const variants: Array<{ variant: string; module: string; nodeArgs: string[]; cwd: string }> = [
    { variant: "source (tsx)", module: SOURCE_ENTRY, nodeArgs: ["--import", "tsx"], cwd: fromRoot() },
  ];
  if (tree.entry) variants.push({ variant: "dist (tsc)", module: tree.entry, nodeArgs: [], cwd: tree.root });
  const imports: ImportTime[] = [];
  for (const v of variants) {
    options.progress(`  import time: ${v.variant}`);
    imports.push(await measureImport({ ...v, modulePath: v.module, samples: options.importSamples, env }));
  }
  if (bundle.runnable) {
    options.progress("  import time: bundle (esbuild)");
    imports.push(
      await measureImport({
        variant: "bundle (esbuild, runnable)",
        modulePath: bundle.runnable.file,
        nodeArgs: [],
        cwd: tree.root,
        samples: options.importSamples,
        env,
      }),
    );
  }
  const entryImports: EntryImportTime[] = [];
  for (const name of [...ALL_ENTRY_POINTS.map((e) => e.name), CONSOLE_ENTRY_POINT]) {
    for (const v of variants) {
      const measured = await measureEntryImport({
        entryPoint: name,
        variant: v.variant,
        modulePath: v.module,
        nodeArgs: v.nodeArgs,
        cwd: v.cwd,
        samples: options.importSamples,
        env,
      });
      options.progress(
        `  import ${name} (${v.variant}): ${measured.importMs ? `${Math.round(measured.importMs.median)} ms median` : measured.error}`,
      );
      entryImports.push(measured);
    }
  }
  options.progress("  import time per direct dependency");
  const packages = await measurePackageImports({ packages: graphDependencies(bundle), env });
  const servers: ServerColdStart[] = [];
  for (const entryPoint of ALL_ENTRY_POINTS) {
    for (const v of variants) {
      const result = await serverColdStart({
        entryPoint,
        variant: v.variant,
        source: v.module,
        nodeArgs: v.nodeArgs,
        cwd: v.cwd,
        env,
        projectId,
      });
      options.progress(
        `  ${entryPoint.name} (${v.variant}): listening ${result.listeningMs ?? "?"} ms, first request ${result.firstRequestMs ?? "?"} ms${result.error ? ` — ${result.error}` : ""}`,
      );
      servers.push(result);
    }
  }
  const { root: _root, entry, ...build } = tree;
  return {
    build: { ...build, built: entry !== undefined },
    bundle,
    imports,
    entryImports,
    packages,
    servers,
  };
}

/** package.json dependencies that the bundle pulled in (or left external): the graph's direct deps. */
function graphDependencies(bundle: BundleReport): string[] {
  const manifest = JSON.parse(readFileSync(fromRoot("package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  const inGraph = new Set([...(bundle.inputPackages ?? []), ...(bundle.full?.external ?? [])]);
  return Object.keys(manifest.dependencies ?? {}).filter((name) => inGraph.has(name));
}

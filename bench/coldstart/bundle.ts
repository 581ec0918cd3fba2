import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fromRoot } from "../../functions/src/platform/paths.js";

/**
 * What one Cloud Function instance would load if the source were bundled: esbuild (tsx's
 * own dependency) bundles functions/src/index.ts for Node 22.
 *
 * - full: everything but @duckdb/node-api (a native addon cannot be bundled). Its size is
 *   the whole code an instance loads, but it does not run: google-gax finds its .proto
 *   files through __dirname, which a bundle no longer has.
 * - runnable: google-gax and the @google-cloud/* clients stay in node_modules as well;
 *   this one is imported for the cold-start comparison.
 */
export interface BundleReport {
  full?: { bytes: number; minifiedBytes: number; external: string[] };
  runnable?: { bytes: number; external: string[]; file: string };
  /** Bytes per package in the full bundle, largest first. */
  largestInputs?: Array<{ path: string; bytes: number }>;
  /** Every package with code in the full bundle. */
  inputPackages?: string[];
  buildMs?: number;
  error?: string;
}

const FULL_EXTERNAL = ["@duckdb/node-api"];
const RUNNABLE_EXTERNAL = [...FULL_EXTERNAL, "google-gax", "@google-cloud/*"];
// A bundled ESM file still meets CommonJS code that calls require(); give it one.
const BANNER =
  "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);";

export async function bundleFunctions(outDir: string): Promise<BundleReport> {
  let esbuild: typeof import("esbuild");
  try {
    esbuild = await import("esbuild");
  } catch (error) {
    return { error: `esbuild is not installed here: ${String(error)}` };
  }
  mkdirSync(outDir, { recursive: true });
  const common = {
    entryPoints: [fromRoot("functions/src/index.ts")],
    bundle: true,
    platform: "node" as const,
    target: "node22",
    format: "esm" as const,
    banner: { js: BANNER },
    logLevel: "silent" as const,
  };
  const file = (name: string) => join(outDir, name);
  try {
    const started = performance.now();
    const full = await esbuild.build({
      ...common,
      external: FULL_EXTERNAL,
      outfile: file("full.mjs"),
      metafile: true,
    });
    const buildMs = performance.now() - started;
    await esbuild.build({ ...common, external: FULL_EXTERNAL, outfile: file("full.min.mjs"), minify: true });
    await esbuild.build({ ...common, external: RUNNABLE_EXTERNAL, outfile: file("runnable.mjs") });
    const byPackage = new Map<string, number>();
    for (const [path, info] of Object.entries(full.metafile.inputs)) {
      const key = packageOf(path);
      byPackage.set(key, (byPackage.get(key) ?? 0) + info.bytes);
    }
    return {
      full: {
        bytes: statSync(file("full.mjs")).size,
        minifiedBytes: statSync(file("full.min.mjs")).size,
        external: FULL_EXTERNAL,
      },
      runnable: {
        bytes: statSync(file("runnable.mjs")).size,
        external: RUNNABLE_EXTERNAL,
        file: file("runnable.mjs"),
      },
      largestInputs: [...byPackage]
        .map(([path, bytes]) => ({ path, bytes }))
        .sort((a, b) => b.bytes - a.bytes)
        .slice(0, 8),
      inputPackages: [...byPackage.keys()],
      buildMs,
    };
  } catch (error) {
    return { error: String(error).slice(0, 500) };
  }
}

/** node_modules/@scope/name/... → @scope/name; node_modules/name/... → name; else ferret's own code. */
function packageOf(path: string): string {
  const at = path.lastIndexOf("node_modules/");
  if (at < 0) return "ferret (own code)";
  const rest = path.slice(at + "node_modules/".length).split("/");
  return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? path);
}

import { copyFileSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fromRoot } from "../../functions/src/platform/paths.js";
import { run } from "./spawn.js";

/**
 * A source tree laid out like the deployed function source after `gcp-build`: package.json,
 * the compiled JS under dist/, and the files the code reads at run time (prompts, runbooks).
 * Built with the project's own tsconfig.build.json into a temporary directory, so the
 * benchmark never touches the working tree's dist/.
 */
export interface DeployTree {
  root: string;
  /** dist/functions/src/index.js, or undefined when the build failed. */
  entry?: string;
  buildMs: number;
  error?: string;
}

export async function buildDeployTree(dir: string): Promise<DeployTree> {
  mkdirSync(join(dir, "functions"), { recursive: true });
  copyFileSync(fromRoot("package.json"), join(dir, "package.json"));
  const links: Array<[string, string]> = [
    ["node_modules", "node_modules"],
    ["prompts", "prompts"],
    ["functions/runbooks", "functions/runbooks"],
  ];
  for (const [from, to] of links) {
    if (existsSync(fromRoot(from)) && !existsSync(join(dir, to))) symlinkSync(fromRoot(from), join(dir, to));
  }
  const tsc = fromRoot("node_modules/typescript/bin/tsc");
  const built = await run(
    process.execPath,
    [tsc, "-p", fromRoot("tsconfig.build.json"), "--outDir", join(dir, "dist")],
    { cwd: fromRoot(), env: process.env, timeoutMs: 240_000 },
  );
  const entry = join(dir, "dist/functions/src/index.js");
  const why = `${built.stdout}\n${built.stderr}`.trim().split("\n").slice(0, 3).join(" | ");
  // tsc still emits when it reports type errors; the JS is then usable and the note says why.
  if (!existsSync(entry))
    return { root: dir, buildMs: built.wallMs, error: `tsc exited ${built.code}: ${why}` };
  return {
    root: dir,
    entry,
    buildMs: built.wallMs,
    ...(built.code === 0 ? {} : { error: `tsc exited ${built.code} (JS emitted anyway): ${why}` }),
  };
}

import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/**
 * The repository (or deployed source) root, found by walking up to package.json, so the
 * same lookup works from functions/src under tsx and from dist/ after a build.
 */
export function repoRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the ferret package root above this module");
    dir = parent;
  }
  cached = dir;
  return dir;
}

export function fromRoot(...parts: string[]): string {
  return resolve(repoRoot(), ...parts);
}

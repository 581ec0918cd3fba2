import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmulatorStack, startEmulators } from "../../functions/src/local/emulators.js";

/**
 * One emulator pair for the whole benchmark. Starting them sets this process's
 * environment, so every later client (and the local stack, which reuses emulators the
 * environment points at) talks to them.
 */
export async function benchEmulators(): Promise<EmulatorStack & { workDir: string }> {
  const workDir = mkdtempSync(join(tmpdir(), "ferret-bench-"));
  const stack = await startEmulators({ projectId: "ferret-bench", logDir: join(workDir, "emulators") });
  Object.assign(process.env, stack.env);
  return Object.assign(stack, { workDir });
}

let counter = 0;

/** A fresh project id: the emulators keep projects apart, so runs never see each other's data. */
export function freshProject(prefix: string): string {
  counter += 1;
  const clean = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 14);
  return `${clean}-${process.pid}-${counter}`;
}

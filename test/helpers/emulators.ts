import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killOwnedEmulatorsSync, startEmulators } from "../../functions/src/local/emulators.js";

/**
 * Emulators for one test file. Under scripts/run-tests.ts the environment already points at
 * a shared pair and they are reused; a file run on its own starts its own pair, which is
 * killed when the process exits. Either way this process's environment ends up pointing at
 * them, so clients created afterwards use them.
 */
export interface TestEmulators {
  firestoreHost: string;
  pubsubHost: string;
  /** True when this process started them (the file was run on its own). */
  startedHere: boolean;
}

let pending: Promise<TestEmulators> | undefined;

export function ensureEmulators(): Promise<TestEmulators> {
  pending ??= start();
  return pending;
}

async function start(): Promise<TestEmulators> {
  // Only written to when this process starts its own emulators.
  const logDir = join(tmpdir(), "ferret-test-emulators", String(process.pid));
  const stack = await startEmulators({ projectId: "ferret-test", logDir });
  Object.assign(process.env, stack.env);
  const startedHere =
    Boolean(stack.firestore && !stack.firestore.reused) || Boolean(stack.pubsub && !stack.pubsub.reused);
  if (startedHere) {
    // Logs stay when the file failed, for a look at what the emulator said.
    process.once("exit", (code) => {
      if (code === 0) rmSync(logDir, { recursive: true, force: true, maxRetries: 3 });
    });
    // An interrupted run must not leave java behind; the normal exit is covered by emulators.ts.
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        killOwnedEmulatorsSync();
        process.exit(130);
      });
    }
  }
  return {
    firestoreHost: stack.firestore?.host ?? "",
    pubsubHost: stack.pubsub?.host ?? "",
    startedHere,
  };
}

/**
 * A project id no other test file uses. Both emulators accept any project id and keep
 * projects apart, so files share one emulator pair without seeing each other's data.
 */
export function uniqueProjectId(prefix: string): string {
  const clean = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .replace(/^[^a-z]+/, "")
    .slice(0, 16);
  return `${clean || "t"}-${randomBytes(5).toString("hex")}`;
}

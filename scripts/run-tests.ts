/**
 * Runs node's test runner with one shared pair of emulators (Firestore, Pub/Sub).
 *
 *   node --import tsx scripts/run-tests.ts [--runner-flag[=value]…] [--without-emulators] "<glob>"…
 *
 * Flags are forwarded to `node --test` and must be written as --name or --name=value
 * (e.g. --test-concurrency=2, --test-reporter=spec); everything else is a file glob, which
 * the test runner expands. Test files find the emulators through the environment
 * (test/helpers/emulators.ts) and isolate themselves by project id. The emulators are
 * stopped when the runner ends, fails or is interrupted, and the script exits with the
 * runner's exit code.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type EmulatorHandle, type EmulatorStack, startEmulators } from "../functions/src/local/emulators.js";

const OWN_FLAGS = new Set(["--without-emulators"]);

function describe(handle: EmulatorHandle | undefined): string {
  if (!handle) return "";
  const how = handle.reused ? "reused" : `started in ${(handle.startMs / 1000).toFixed(1)} s`;
  return `${handle.kind} at ${handle.host} (${how})`;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const runnerFlags = args.filter((a) => a.startsWith("--") && !OWN_FLAGS.has(a));
  const patterns = args.filter((a) => !a.startsWith("--"));
  if (patterns.length === 0) {
    process.stderr.write("run-tests: give at least one test file glob\n");
    return 2;
  }

  let stack: EmulatorStack | undefined;
  const logDir = mkdtempSync(join(tmpdir(), "ferret-run-tests-"));
  if (!args.includes("--without-emulators")) {
    const started = performance.now();
    try {
      stack = await startEmulators({ projectId: "ferret-test", logDir });
    } catch (error) {
      process.stderr.write(`run-tests: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
    const both = [describe(stack.firestore), describe(stack.pubsub)].filter(Boolean).join(", ");
    process.stderr.write(
      `run-tests: ${both}; ready after ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  }

  const child = spawn(process.execPath, ["--import", "tsx", "--test", ...runnerFlags, ...patterns], {
    stdio: "inherit",
    env: { ...process.env, ...stack?.env },
  });
  // Ctrl-C reaches the runner through the terminal too; forwarding covers a plain `kill`.
  // Either way we wait for the runner to finish before the emulators go.
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  process.on("SIGINT", forward("SIGINT"));
  process.on("SIGTERM", forward("SIGTERM"));

  const code = await new Promise<number>((resolve) => {
    child.once("error", (error) => {
      process.stderr.write(`run-tests: could not start the test runner: ${error.message}\n`);
      resolve(1);
    });
    child.once("exit", (exitCode, signal) => {
      resolve(exitCode ?? (signal === "SIGINT" ? 130 : signal === "SIGTERM" ? 143 : 1));
    });
  });

  await stack?.stop();
  if (code === 0) rmSync(logDir, { recursive: true, force: true });
  else if (stack) process.stderr.write(`run-tests: emulator logs kept in ${logDir}\n`);
  return code;
}

process.exitCode = await main();

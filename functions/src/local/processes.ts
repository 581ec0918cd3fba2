import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A child process of the local stack, with its output kept in a log file. */
export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  stop(): Promise<void>;
}

export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; logDir: string; cwd: string },
): ManagedProcess {
  mkdirSync(options.logDir, { recursive: true });
  const logFile = join(options.logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: "a" });
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    name,
    child,
    logFile,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const done = await Promise.race([exited.then(() => true), sleep(3_000).then(() => false)]);
      if (!done) {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}

/**
 * Waits until something answers HTTP on the URL (any status), or the process dies. Eight
 * function servers importing the source tree at once took over 60 s on a loaded 2-core
 * machine (seconds when quiet); a dead process still fails at once.
 */
export async function waitForHttp(url: string, proc: ManagedProcess, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) {
      throw new Error(
        `${proc.name} exited with code ${proc.child.exitCode} before it was ready; see ${proc.logFile}`,
      );
    }
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await sleep(150);
    }
  }
  throw new Error(`${proc.name} did not answer on ${url} within ${timeoutMs} ms; see ${proc.logFile}`);
}

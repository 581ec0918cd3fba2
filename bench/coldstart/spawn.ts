import { spawn } from "node:child_process";

export interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** Runs a command to completion (or kills it at the timeout) and captures its output. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Spawned> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, wallMs: performance.now() - started });
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `${stderr}${String(error)}`, wallMs: performance.now() - started });
    });
  });
}

/** The last stdout line that parses as a JSON object. */
export function lastJson<T>(stdout: string): T | undefined {
  for (const line of stdout.trim().split("\n").reverse()) {
    if (!line.startsWith("{")) continue;
    try {
      return JSON.parse(line) as T;
    } catch {}
  }
  return undefined;
}

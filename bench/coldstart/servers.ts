import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../functions/src/local/free-port.js";
import { ROLES } from "../../functions/src/roles/index.js";
import type { Role } from "../../functions/src/roles/role.js";

/**
 * One functions-framework server per entry point, started cold the way Cloud Run starts an
 * instance: time until it answers HTTP at all, then the first real request (which builds
 * the process-wide runtime: config, Firestore and Pub/Sub clients, DuckDB over the logs,
 * the STIX bundle), then a second, warm one.
 */
export interface ServerColdStart {
  entryPoint: string;
  variant: string;
  /** Spawn until the server answers HTTP. */
  listeningMs?: number;
  /** The first request, which builds the runtime. */
  firstRequestMs?: number;
  firstStatus?: number;
  secondRequestMs?: number;
  error?: string;
}

const PROBE_ID = `inv-${"0".repeat(24)}`;
/** Valid for every HTTP schema (unknown keys are stripped): the runtime is built, then NotFound. */
const HTTP_BODY = {
  investigationId: PROBE_ID,
  stepId: "probe",
  wave: 1,
  stepIds: ["probe"],
  mode: "needs_human",
  reason: "cold-start probe",
};

function ffMain(): string {
  const index = createRequire(import.meta.url).resolve("@google-cloud/functions-framework");
  return join(dirname(index), "main.js");
}

/** A Pub/Sub push whose data is not what the function expects: it is dead-lettered (runtime + one publish). */
function pushBody(): string {
  return JSON.stringify({
    message: { data: Buffer.from(JSON.stringify({ probe: true })).toString("base64"), messageId: "probe-1" },
    subscription: "projects/bench/subscriptions/probe",
  });
}

async function timedPost(url: string, body: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    signal: AbortSignal.timeout(120_000),
  });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

async function waitListening(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before listening`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await sleep(20);
    }
  }
  throw new Error(`not listening after ${timeoutMs} ms`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const done = await Promise.race([exited.then(() => true), sleep(3_000).then(() => false)]);
  if (!done) {
    child.kill("SIGKILL");
    await exited;
  }
}

export async function serverColdStart(options: {
  entryPoint: Role;
  variant: string;
  source: string;
  nodeArgs: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  projectId: string;
}): Promise<ServerColdStart> {
  const { entryPoint } = options;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...options.nodeArgs,
      ffMain(),
      `--target=${entryPoint.name}`,
      `--signature-type=${entryPoint.trigger === "http" ? "http" : "cloudevent"}`,
      `--port=${port}`,
      `--source=${options.source}`,
    ],
    { cwd: options.cwd, env: options.env, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => {
    stderr = (stderr + c.toString("utf8")).slice(-2_000);
  });
  const record: ServerColdStart = { entryPoint: entryPoint.name, variant: options.variant };
  try {
    await waitListening(base, child, 120_000);
    record.listeningMs = Math.round(performance.now() - started);
    const url =
      entryPoint.trigger === "http"
        ? `${base}/`
        : `${base}/projects/${options.projectId}/topics/${entryPoint.topic}`;
    const body = entryPoint.trigger === "http" ? JSON.stringify(HTTP_BODY) : pushBody();
    const first = await timedPost(url, body);
    record.firstRequestMs = Math.round(first.ms);
    record.firstStatus = first.status;
    record.secondRequestMs = Math.round((await timedPost(url, body)).ms);
  } catch (error) {
    record.error = `${String(error)} ${stderr.trim().split("\n").slice(-2).join(" | ")}`.slice(0, 400);
  } finally {
    await stop(child);
  }
  return record;
}

export const ALL_ENTRY_POINTS: readonly Role[] = ROLES;

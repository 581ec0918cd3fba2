import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { ConfigError } from "../domain/errors.js";
import { freePort } from "./free-port.js";

/**
 * Starts the real Firestore and Pub/Sub emulators (the gcloud ones) for the local stack and
 * the integration tests, or reuses emulators that the environment already points at.
 */
export type EmulatorKind = "firestore" | "pubsub";

export interface EmulatorHandle {
  readonly kind: EmulatorKind;
  /** `127.0.0.1:PORT`, the value for FIRESTORE_EMULATOR_HOST / PUBSUB_EMULATOR_HOST. */
  readonly host: string;
  /** True when the environment already pointed at a running emulator; stop() then leaves it alone. */
  readonly reused: boolean;
  /** Milliseconds from spawn to the first healthy answer (0 when reused). */
  readonly startMs: number;
  readonly logFile: string | undefined;
  /** Process group id of the gcloud wrapper and its java child. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export interface EmulatorStack {
  readonly firestore: EmulatorHandle | undefined;
  readonly pubsub: EmulatorHandle | undefined;
  /** What a process (or child process) must have in its environment to use these emulators. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

export interface StartEmulatorsOptions {
  /** Defaults to true. */
  firestore?: boolean;
  /** Defaults to true. */
  pubsub?: boolean;
  projectId: string;
  /** Where `firestore.log` and `pubsub.log` (and the Pub/Sub emulator's data dir) go; created only if needed. */
  logDir: string;
  /** Readiness deadline per emulator; defaults to 60 s. */
  timeoutMs?: number;
  /** Where to look for already running emulators; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** The gcloud executable; defaults to `gcloud` on PATH. */
  gcloud?: string;
  /** A Firestore emulator export to start from (`--import-data`; `ferret console --run`). */
  firestoreImportDir?: string;
}

const ENV_VAR: Record<EmulatorKind, string> = {
  firestore: "FIRESTORE_EMULATOR_HOST",
  pubsub: "PUBSUB_EMULATOR_HOST",
};
const DEFAULT_TIMEOUT_MS = 60_000;
const PORT_ATTEMPTS = 3;
const LOG_TAIL_LINES = 30;

/** Starts (or reuses) the requested emulators in parallel. */
export async function startEmulators(options: StartEmulatorsOptions): Promise<EmulatorStack> {
  const kinds: EmulatorKind[] = [];
  if (options.firestore ?? true) kinds.push("firestore");
  if (options.pubsub ?? true) kinds.push("pubsub");

  const settled = await Promise.allSettled(kinds.map((kind) => startOne(kind, options)));
  const handles = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failure) {
    // One failed: do not leave the other one running behind the caller's back.
    await Promise.all(handles.map((h) => h.stop()));
    throw failure.reason;
  }

  const byKind = (kind: EmulatorKind) => handles.find((h) => h.kind === kind);
  const env: Record<string, string> = {
    GOOGLE_CLOUD_PROJECT: options.projectId,
    // Google client libraries otherwise probe the GCE metadata server at start-up.
    METADATA_SERVER_DETECTION: "none",
  };
  for (const h of handles) env[ENV_VAR[h.kind]] = h.host;
  return {
    firestore: byKind("firestore"),
    pubsub: byKind("pubsub"),
    env,
    stop: async () => {
      await Promise.all(handles.map((h) => h.stop()));
    },
  };
}

async function startOne(kind: EmulatorKind, options: StartEmulatorsOptions): Promise<EmulatorHandle> {
  const existing = (options.env ?? process.env)[ENV_VAR[kind]];
  if (existing) return reuse(kind, existing);
  mkdirSync(options.logDir, { recursive: true });

  const deadline = performance.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  for (let attempt = 1; ; attempt++) {
    const host = `127.0.0.1:${await freePort()}`;
    const logFile = join(options.logDir, `${kind}.log`);
    const started = performance.now();
    const child = launch(kind, host, logFile, options);
    const outcome = await waitUntilReady(kind, host, child, deadline);
    if (outcome.kind === "ready") {
      return ownedHandle(kind, host, logFile, child.pid, Math.round(performance.now() - started));
    }
    if (child.pid !== undefined) await killGroup(child.pid);
    const log = tail(logFile);
    // freePort releases the port before gcloud binds it; losing that race is worth another try.
    if (
      outcome.kind === "exited" &&
      /address already in use|BindException/i.test(log) &&
      attempt < PORT_ATTEMPTS
    ) {
      continue;
    }
    const why =
      outcome.kind === "exited"
        ? `exited with ${outcome.detail} before answering`
        : outcome.kind === "spawn_failed"
          ? `could not be started (${outcome.detail}); is google-cloud-cli installed and on PATH?`
          : `did not answer on http://${host}/ within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`;
    throw new ConfigError(`${kind} emulator ${why}. Last lines of ${logFile}:\n${log}`, {
      kind,
      host,
      logFile,
    });
  }
}

async function reuse(kind: EmulatorKind, host: string): Promise<EmulatorHandle> {
  if (!(await isHealthy(kind, host))) {
    throw new ConfigError(
      `${ENV_VAR[kind]}=${host} is set, but no ${kind} emulator answers there; unset it to let ferret start one`,
      { kind, host },
    );
  }
  return { kind, host, reused: true, startMs: 0, logFile: undefined, pid: undefined, stop: async () => {} };
}

function launch(
  kind: EmulatorKind,
  host: string,
  logFile: string,
  options: StartEmulatorsOptions,
): ChildProcess {
  const pubsubDataDir = join(options.logDir, "pubsub-data");
  if (kind === "pubsub") mkdirSync(pubsubDataDir, { recursive: true });
  const args =
    kind === "firestore"
      ? [
          "emulators",
          "firestore",
          "start",
          `--host-port=${host}`,
          `--project=${options.projectId}`,
          ...(options.firestoreImportDir ? [`--import-data=${options.firestoreImportDir}`] : []),
        ]
      : [
          "beta",
          "emulators",
          "pubsub",
          "start",
          `--host-port=${host}`,
          `--project=${options.projectId}`,
          // Its own data dir, so parallel runs do not share the default one under ~/.config/gcloud.
          `--data-dir=${pubsubDataDir}`,
        ];
  const fd = openSync(logFile, "w");
  try {
    // detached: gcloud (python) runs a shell script that runs java; a group of their own lets
    // stop() kill all three with one signal instead of orphaning the java process.
    const child = spawn(options.gcloud ?? "gcloud", args, {
      detached: true,
      stdio: ["ignore", fd, fd],
      env: { ...process.env, CLOUDSDK_CORE_DISABLE_PROMPTS: "1" },
    });
    child.unref();
    if (child.pid !== undefined) liveGroups.add(child.pid);
    return child;
  } finally {
    closeSync(fd);
  }
}

type ReadyOutcome =
  | { kind: "ready" }
  | { kind: "exited"; detail: string }
  | { kind: "spawn_failed"; detail: string }
  | { kind: "timeout" };

async function waitUntilReady(
  kind: EmulatorKind,
  host: string,
  child: ChildProcess,
  deadline: number,
): Promise<ReadyOutcome> {
  let early: ReadyOutcome | undefined;
  child.once("error", (error) => {
    early = { kind: "spawn_failed", detail: error.message };
  });
  child.once("exit", (code, signal) => {
    early ??= { kind: "exited", detail: signal ? `signal ${signal}` : `code ${code}` };
  });
  while (performance.now() < deadline) {
    if (early) return early;
    if (await isHealthy(kind, host)) return { kind: "ready" };
    await sleep(100);
  }
  return early ?? { kind: "timeout" };
}

/** The Firestore emulator answers `GET /` with "Ok"; the Pub/Sub emulator with 200 once it listens. */
export async function isHealthy(kind: EmulatorKind, host: string): Promise<boolean> {
  const answer = await httpGet(`http://${host}/`);
  if (answer?.status !== 200) return false;
  return kind === "firestore" ? answer.body.trim() === "Ok" : true;
}

function httpGet(url: string): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    // agent:false so no keep-alive socket outlives the probe and holds the process open.
    const req = request(url, { agent: false, timeout: 1_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", () => resolve(undefined));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
    req.end();
  });
}

function ownedHandle(
  kind: EmulatorKind,
  host: string,
  logFile: string,
  pid: number | undefined,
  startMs: number,
): EmulatorHandle {
  let stopping: Promise<void> | undefined;
  return {
    kind,
    host,
    reused: false,
    startMs,
    logFile,
    pid,
    stop: () => {
      stopping ??= pid === undefined ? Promise.resolve() : killGroup(pid);
      return stopping;
    },
  };
}

const liveGroups = new Set<number>();

/**
 * SIGKILL, not SIGTERM: the emulators keep everything in memory, so there is nothing to
 * flush, and java takes ~2 s to honour SIGTERM. Resolves once no process of the group is left.
 */
async function killGroup(pgid: number): Promise<void> {
  signalGroup(pgid, "SIGKILL");
  for (let waited = 0; waited < 5_000 && groupAlive(pgid); waited += 25) await sleep(25);
  liveGroups.delete(pgid);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  // kill(0) also succeeds for zombies, and here PID 1 reaps orphans only every second or
  // so; a zombie holds no memory or ports, so only members that still run count.
  return hasRunningMember(pgid);
}

function hasRunningMember(pgid: number): boolean {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return true; // no procfs: trust kill(0)
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after "(comm)": state ppid pgrp ...; comm itself may contain spaces.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
    } catch {
      // The process ended while we looked.
    }
  }
  return false;
}

/**
 * Kills every emulator this process started, synchronously. For exit and signal handlers,
 * where nothing asynchronous runs any more.
 */
export function killOwnedEmulatorsSync(): void {
  for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
  liveGroups.clear();
}

// A crash or a forgotten stop() must not leave java processes behind.
process.once("exit", killOwnedEmulatorsSync);

function tail(file: string): string {
  try {
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    return lines.slice(-LOG_TAIL_LINES).join("\n");
  } catch {
    return "(no log written)";
  }
}

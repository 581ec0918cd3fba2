import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../functions/src/adapters/firestore/client.js";
import { COLLECTIONS } from "../../functions/src/adapters/firestore/paths.js";
import { PubSubEventBus } from "../../functions/src/adapters/pubsub/event-bus.js";
import type { JsonObject } from "../../functions/src/domain/json.js";
import { freePort } from "../../functions/src/local/free-port.js";
import { type ManagedProcess, startProcess, waitForHttp } from "../../functions/src/local/processes.js";
import { ensureTopology } from "../../functions/src/local/pubsub-setup.js";
import { fromRoot } from "../../functions/src/platform/paths.js";
import { TOPICS } from "../../functions/src/platform/topics.js";
import { freshProject } from "../lib/emulators.js";
import { type BenchScenario, variant } from "../lib/scenarios.js";
import { epochMs } from "../pipeline/proxy.js";
import { startFakeExecutions } from "./fake-executions.js";

/**
 * Section 4: notifications straight through ingest on the emulators — Pub/Sub push
 * subscription → functions-framework ingest server → Firestore investigation, queued → a
 * drain request to the sweep function, whose drainer launches it → executions service
 * (accepting, not running). Ingest's acceptance is what is timed; the launches are checked.
 */
export interface IngestPhase {
  messages: number;
  unique: number;
  /** Publish of the first message until ingest logged the last one as handled. */
  seconds: number;
  messagesPerSecond: number;
  uniquePerSecond: number;
  created: number;
  launched: number;
  duplicatesIgnored: number;
  /** Deliveries ingest failed with a retryable error (Pub/Sub redelivered them). */
  retried: number;
}

export interface IngestSection {
  unique: IngestPhase;
  duplicates: IngestPhase & { deliveriesPerFinding: number };
}

interface Handled {
  atMs: number;
  outcome: string;
}

function handledLines(logFile: string): { handled: Handled[]; retried: number } {
  if (!existsSync(logFile)) return { handled: [], retried: 0 };
  const handled: Handled[] = [];
  let retried = 0;
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    if (line.includes('"retryable failure')) retried += 1;
    if (!line.includes('"notification ingested"')) continue;
    const entry = JSON.parse(line) as { time: string; outcome: string };
    handled.push({ atMs: Date.parse(entry.time), outcome: entry.outcome });
  }
  return { handled, retried };
}

async function count(db: Firestore): Promise<number> {
  const snapshot = await db.collection(COLLECTIONS.investigations).count().get();
  return snapshot.data().count;
}

function notifications(scenarios: readonly BenchScenario[], n: number, tag: string): JsonObject[] {
  return Array.from({ length: n }, (_, i) => {
    const scenario = scenarios[i % scenarios.length] as BenchScenario;
    return variant(scenario.notification, `-${tag}-${i}`).notification;
  });
}

/** A fixed permutation (LCG), so every run delivers the copies in the same interleaving. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  let seed = 42;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export async function measureIngest(options: {
  scenarios: readonly BenchScenario[];
  notifications: number;
  workDir: string;
  progress: (line: string) => void;
}): Promise<IngestSection> {
  const projectId = freshProject("ingest");
  const executions = await startFakeExecutions();
  const ffMain = join(
    dirname(createRequire(import.meta.url).resolve("@google-cloud/functions-framework")),
    "main.js",
  );
  const logDir = join(options.workDir, "ingest");
  // Ingest queues; the sweep's drainer is the one launcher (decision 0039), started here as
  // Terraform wires it: ingest's drain requests are pushed to it.
  const start = async (target: "ingest" | "sweep") => {
    const port = await freePort();
    const process_: ManagedProcess = startProcess(
      target,
      process.execPath,
      [
        "--import",
        "tsx",
        ffMain,
        `--target=${target}`,
        "--signature-type=cloudevent",
        `--port=${port}`,
        `--source=${fromRoot("functions/src/index.ts")}`,
      ],
      {
        env: {
          ...process.env,
          GOOGLE_CLOUD_PROJECT: projectId,
          FERRET_MODEL_PROVIDER: "offline",
          ...(target === "sweep" ? { FERRET_WORKFLOWS_URL: executions.url } : {}),
          FERRET_LOG_LEVEL: "INFO",
          // This section measures ingest (parse, dedupe, create, queue) and that the drainer
          // launches each finding once, not the storm governor, which the storm test covers:
          // its limits sit above the 200 findings so each one launches.
          FERRET_GOVERNOR_MAX_CONCURRENT: "1000",
          FERRET_GOVERNOR_PER_HOUR: "100000",
        },
        logDir,
        cwd: fromRoot(),
      },
    );
    return { process: process_, url: `http://127.0.0.1:${port}` };
  };
  const ingest = await start("ingest");
  const sweep = await start("sweep");
  const server = ingest.process;
  const bus = new PubSubEventBus(projectId);
  const db = createFirestore({ projectId });
  try {
    await waitForHttp(ingest.url, server);
    await waitForHttp(sweep.url, sweep.process);
    await ensureTopology(projectId, {
      pushEndpoints: {
        [TOPICS.findings]: `${ingest.url}/projects/${projectId}/topics/${TOPICS.findings}`,
        [TOPICS.sweep]: `${sweep.url}/projects/${projectId}/topics/${TOPICS.sweep}`,
      },
      maxDeliveryAttempts: 5,
    });
    const phase = async (messages: JsonObject[], unique: number): Promise<IngestPhase> => {
      const before = handledLines(server.logFile);
      const createdBefore = await count(db);
      const launchedBefore = executions.accepted.length;
      const started = epochMs();
      await Promise.all(messages.map((m) => bus.publish(TOPICS.findings, m)));
      const deadline = Date.now() + 180_000;
      let now = handledLines(server.logFile);
      while (now.handled.length - before.handled.length < messages.length) {
        if (Date.now() > deadline)
          throw new Error(
            `ingest handled ${now.handled.length - before.handled.length} of ${messages.length} messages in 180 s`,
          );
        await sleep(50);
        now = handledLines(server.logFile);
      }
      const mine = now.handled.slice(before.handled.length);
      const last = Math.max(...mine.map((h) => h.atMs));
      const seconds = (last - started) / 1000;
      const created = (await count(db)) - createdBefore;
      // Launches follow ingest through the drainer (at most one drain a second), outside the
      // timed part: wait for every created investigation to be launched, or for 120 s.
      const launchDeadline = Date.now() + 120_000;
      while (executions.accepted.length - launchedBefore < created && Date.now() < launchDeadline)
        await sleep(100);
      const launched = executions.accepted.length - launchedBefore;
      return {
        messages: messages.length,
        unique,
        seconds: Math.round(seconds * 100) / 100,
        messagesPerSecond: Math.round(messages.length / seconds),
        uniquePerSecond: Math.round(unique / seconds),
        created,
        launched,
        duplicatesIgnored: mine.filter((h) => h.outcome === "duplicate").length,
        retried: now.retried - before.retried,
      };
    };
    // Warm-up: the first delivery builds the function's runtime.
    await phase(notifications(options.scenarios, 1, "ingest-warmup"), 1);
    const n = options.notifications;
    const unique = await phase(notifications(options.scenarios, n, "ingest-unique"), n);
    options.progress(`  unique: ${unique.messages} in ${unique.seconds} s (${unique.messagesPerSecond}/s)`);
    const copies = notifications(options.scenarios, n, "ingest-dup").flatMap((m) => [m, m, m]);
    const duplicates = await phase(shuffled(copies), n);
    options.progress(
      `  duplicates: ${duplicates.messages} in ${duplicates.seconds} s (${duplicates.messagesPerSecond}/s)`,
    );
    for (const [name, p] of [
      ["unique", unique],
      ["duplicates", duplicates],
    ] as const) {
      if (p.created !== p.unique || p.launched !== p.unique) {
        throw new Error(
          `ingest ${name}: ${p.unique} unique findings gave ${p.created} investigations and ${p.launched} launches`,
        );
      }
    }
    if (new Set(executions.accepted).size !== executions.accepted.length) {
      throw new Error("ingest launched a workflow twice for one investigation");
    }
    return { unique, duplicates: { ...duplicates, deliveriesPerFinding: 3 } };
  } finally {
    await bus.close();
    await db.terminate();
    await server.stop();
    await sweep.process.stop();
    await executions.close();
  }
}

import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createFirestore } from "../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../functions/src/adapters/pubsub/event-bus.js";
import { type Investigation, TERMINAL_STATUSES } from "../../functions/src/domain/investigation.js";
import { startLocalStack } from "../../functions/src/local/stack.js";
import { TOPICS } from "../../functions/src/platform/topics.js";
import { freshProject } from "../lib/emulators.js";
import { type BenchScenario, variant } from "../lib/scenarios.js";
import { type Summary, summarize } from "../lib/stats.js";
import { coveredMs, pairWithLogs, readOperationLogs } from "./function-logs.js";
import { epochMs, type ProxiedCall, startTimingProxy, type TimingProxy } from "./proxy.js";

/**
 * Section 2: the scenarios through the real local stack with the offline model (no model
 * latency): Pub/Sub push → ingest → local executions service running investigate.yaml →
 * function servers. A timing proxy between the runner and each function records the round
 * trips the workflow sees; the functions' own "<fn> done" logs give the time inside the
 * operation; the executions service gives each execution's start and end.
 */
export interface PipelineRun {
  scenario: string;
  run: number;
  investigationId: string;
  status: string;
  verdict: string | null;
  /** Pub/Sub push + ingest until the investigation document exists. */
  publishToCreatedMs: number;
  /** Ingest's launch claim and the executions service accepting the execution. */
  createdToExecutionMs: number;
  executionMs: number;
  /** Execution time not spent waiting on a function call: the runner's own work. */
  runnerOwnMs: number;
  functionCalls: number;
  publishToConcludedMs: number;
}

export interface FunctionStats {
  fn: string;
  /** Warm calls (every run after a stack's first). */
  calls: number;
  roundTripMs: Summary;
  /** Time inside the operation, from the function's own log line. */
  operationMs: Summary;
  /** Round trip minus operation: HTTP, functions-framework, body parsing, the runtime's investigation read. */
  outsideOperationMs: Summary;
  /** Round trips during each stack's first investigation, when the function's runtime is built lazily. */
  coldRoundTripMs: Summary;
}

export interface StackSection {
  runsPerScenario: number;
  stackStartMs: Summary;
  runs: PipelineRun[];
  functions: FunctionStats[];
  endToEnd: { cold: Summary; warm: Summary; publishToCreated: Summary; createdToExecution: Summary };
  runnerInStack: { ownMsPerExecution: Summary; ownMsPerCall: Summary };
}

interface ExecutionRecord {
  argument: string;
  state: string;
  startTime: string;
  endTime?: string;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function executions(url: string): Promise<ExecutionRecord[]> {
  const body = (await (await fetch(`${url}/v1/executions`)).json()) as { executions: ExecutionRecord[] };
  return body.executions;
}

export async function runThroughStack(options: {
  scenarios: readonly BenchScenario[];
  runs: number;
  workDir: string;
  progress: (line: string) => void;
}): Promise<StackSection> {
  const runs: PipelineRun[] = [];
  const calls: Array<ProxiedCall & { warm: boolean }> = [];
  const pairs: Array<{ roundTrip: number; operation: number; fn: string }> = [];
  const stackStart: number[] = [];
  for (const scenario of options.scenarios) {
    const projectId = freshProject("pipe");
    const proxied: ProxiedCall[] = [];
    const proxies: TimingProxy[] = [];
    const started = performance.now();
    const stack = await startLocalStack({
      projectId,
      workDir: join(options.workDir, `stack-${scenario.name}`),
      env: {
        FERRET_MODEL_PROVIDER: "offline",
        FERRET_DUCKDB_DIR: scenario.logsDir,
        FERRET_STIX_BUNDLE: scenario.stixBundle,
      },
      routeForWorkflow: async (name, url) => {
        const proxy = await startTimingProxy(name, url, proxied);
        proxies.push(proxy);
        return proxy.url;
      },
    });
    stackStart.push(performance.now() - started);
    const store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    const bus = new PubSubEventBus(projectId);
    try {
      for (let run = 1; run <= options.runs; run++) {
        const { notification, id } = variant(scenario.notification, `-pipeline-${run}`);
        const publishedAt = epochMs();
        await bus.publish(TOPICS.findings, notification);
        const inv = await waitFor(
          `${scenario.name} run ${run}`,
          async () => {
            const current = await store.get(id);
            return current && TERMINAL_STATUSES.includes(current.status) ? current : undefined;
          },
          180_000,
        );
        const execution = await waitFor(
          "the execution to end",
          async () => {
            const e = (await executions(stack.executionsUrl)).find((x) => x.argument.includes(id));
            return e && e.state !== "ACTIVE" ? e : undefined;
          },
          60_000,
        );
        runs.push(runRecord(scenario.name, run, inv, execution, publishedAt, proxied));
        options.progress(
          `  ${scenario.name} run ${run}: ${inv.status} ${inv.conclusion?.verdict ?? ""} in ${Math.round(Date.parse(inv.updatedAt) - publishedAt)} ms`,
        );
      }
    } finally {
      await bus.close();
      await stack.stop();
      for (const proxy of proxies) await proxy.close();
    }
    const firstId = runs.find((r) => r.scenario === scenario.name && r.run === 1)?.investigationId;
    for (const call of proxied) calls.push({ ...call, warm: call.investigationId !== firstId });
    const fns = [...new Set(proxied.map((c) => c.fn))];
    for (const fn of fns) {
      const warm = proxied.filter((c) => c.fn === fn && c.investigationId !== firstId);
      for (const { call, log } of pairWithLogs(warm, readOperationLogs(stack.logDir, fn))) {
        pairs.push({ fn, roundTrip: call.endMs - call.startMs, operation: log.durationMs });
      }
    }
    options.progress(`  ${scenario.name}: stack up in ${Math.round(stackStart.at(-1) ?? 0)} ms`);
  }
  return summarizeStack(options.runs, stackStart, runs, calls, pairs);
}

function runRecord(
  scenario: string,
  run: number,
  inv: Investigation,
  execution: ExecutionRecord,
  publishedAt: number,
  proxied: readonly ProxiedCall[],
): PipelineRun {
  const start = Date.parse(execution.startTime);
  const end = Date.parse(execution.endTime ?? execution.startTime);
  const mine = proxied.filter((c) => c.investigationId === inv.id);
  const waiting = coveredMs(mine);
  return {
    scenario,
    run,
    investigationId: inv.id,
    status: inv.status,
    verdict: inv.conclusion?.verdict ?? null,
    publishToCreatedMs: Math.round(Date.parse(inv.createdAt) - publishedAt),
    createdToExecutionMs: Math.round(start - Date.parse(inv.createdAt)),
    executionMs: end - start,
    runnerOwnMs: Math.max(0, Math.round(end - start - waiting)),
    functionCalls: mine.length,
    publishToConcludedMs: Math.round(Date.parse(inv.updatedAt) - publishedAt),
  };
}

function summarizeStack(
  runsPerScenario: number,
  stackStart: number[],
  runs: PipelineRun[],
  calls: ReadonlyArray<ProxiedCall & { warm: boolean }>,
  pairs: ReadonlyArray<{ roundTrip: number; operation: number; fn: string }>,
): StackSection {
  const fns = [...new Set(calls.map((c) => c.fn))];
  const rt = (c: ProxiedCall) => c.endMs - c.startMs;
  return {
    runsPerScenario,
    stackStartMs: summarize(stackStart),
    runs,
    functions: fns.map((fn) => {
      const warm = calls.filter((c) => c.fn === fn && c.warm);
      const mine = pairs.filter((p) => p.fn === fn);
      return {
        fn,
        calls: warm.length,
        roundTripMs: summarize(warm.map(rt)),
        operationMs: summarize(mine.map((p) => p.operation)),
        outsideOperationMs: summarize(mine.map((p) => p.roundTrip - p.operation)),
        coldRoundTripMs: summarize(calls.filter((c) => c.fn === fn && !c.warm).map(rt)),
      };
    }),
    endToEnd: {
      cold: summarize(runs.filter((r) => r.run === 1).map((r) => r.publishToConcludedMs)),
      warm: summarize(runs.filter((r) => r.run > 1).map((r) => r.publishToConcludedMs)),
      publishToCreated: summarize(runs.map((r) => r.publishToCreatedMs)),
      createdToExecution: summarize(runs.map((r) => r.createdToExecutionMs)),
    },
    runnerInStack: {
      ownMsPerExecution: summarize(runs.map((r) => r.runnerOwnMs)),
      ownMsPerCall: summarize(runs.map((r) => r.runnerOwnMs / Math.max(1, r.functionCalls))),
    },
  };
}

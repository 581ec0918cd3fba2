import type { AppDeps } from "../../functions/src/app/deps.js";
import { investigateInProcess } from "../../functions/src/local/in-process-workflow.js";
import { createOfflineModel } from "../../functions/src/offline-model/index.js";
import type { EventBus } from "../../functions/src/ports/event-bus.js";
import { scenarioDeps } from "../agent/deps.js";
import { freshProject } from "../lib/emulators.js";
import type { BenchScenario } from "../lib/scenarios.js";
import { type Summary, summarize, summarizeBy } from "../lib/stats.js";
import { coveredMs } from "./function-logs.js";
import { currentOperation, type PortCall, timedBus, timedStore } from "./timed-ports.js";

/**
 * What the operations spend on Firestore and Pub/Sub, measured in this process around the
 * InvestigationStore and EventBus ports, with the offline model at zero latency. The
 * investigation runs the deployed YAML in this process, with a stopwatch around each call.
 */
export interface OperationCost {
  operation: string;
  invocations: number;
  wallMs: Summary;
  storeMs: Summary;
  storeCalls: Summary;
  busMs: Summary;
  /** Wall minus store and bus: model rules, tools (DuckDB, STIX), validation. */
  restMs: Summary;
}

export interface StoreCostSection {
  runsPerScenario: number;
  operations: OperationCost[];
  /** Per InvestigationStore method (and bus.publish), over every call. */
  methods: Record<string, Summary>;
  /**
   * Per investigation: the drive's wall time; the wall-clock time during which at least one
   * store (bus) call was in flight (parallel steps overlap, so this is less than the sum);
   * the number of store calls.
   */
  perInvestigation: { wallMs: Summary; storeMs: Summary; busMs: Summary; storeCalls: Summary };
}

interface OpTiming {
  operation: string;
  invocation: number;
  ms: number;
}

/** The workflow in this process, with a stopwatch around each function call it makes. */
async function timedDrive(id: string, deps: AppDeps, ops: OpTiming[]): Promise<void> {
  let counter = 0;
  await investigateInProcess(id, deps, {
    around: async (operation, call) => {
      const invocation = counter++;
      const started = performance.now();
      try {
        return await currentOperation.run({ operation, invocation }, call);
      } finally {
        ops.push({ operation, invocation, ms: performance.now() - started });
      }
    },
  });
}

export async function measureStoreCost(options: {
  scenarios: readonly BenchScenario[];
  runs: number;
  bus: EventBus;
}): Promise<StoreCostSection> {
  const calls: PortCall[] = [];
  const ops: OpTiming[] = [];
  const perInvestigation: { wallMs: number[]; storeMs: number[]; busMs: number[]; storeCalls: number[] } = {
    wallMs: [],
    storeMs: [],
    busMs: [],
    storeCalls: [],
  };
  for (const scenario of options.scenarios) {
    for (let run = 0; run < options.runs; run++) {
      const mine: PortCall[] = [];
      const mineOps: OpTiming[] = [];
      const sd = await scenarioDeps({
        scenario,
        policy: {},
        model: createOfflineModel(),
        projectId: freshProject("store"),
        bus: timedBus(options.bus, mine),
        wrapStore: (store) => timedStore(store, mine),
      });
      try {
        const id = await sd.ingest(scenario.notification);
        mine.length = 0; // ingest is measured in section 4
        const started = performance.now();
        await timedDrive(id, sd.deps, mineOps);
        perInvestigation.wallMs.push(performance.now() - started);
      } finally {
        await sd.close();
      }
      const store = mine.filter((c) => c.port === "store");
      const interval = (c: PortCall) => ({ startMs: c.startMs, endMs: c.startMs + c.ms });
      perInvestigation.storeMs.push(coveredMs(store.map(interval)));
      perInvestigation.busMs.push(coveredMs(mine.filter((c) => c.port === "bus").map(interval)));
      perInvestigation.storeCalls.push(store.length);
      // Invocation numbers are per drive: make them unique across drives.
      const base = ops.length;
      for (const op of mineOps) ops.push({ ...op, invocation: op.invocation + base });
      for (const call of mine) calls.push({ ...call, invocation: call.invocation + base });
    }
  }
  const names = ["planner", "stepExecutor", "reflector", "concluder"];
  return {
    runsPerScenario: options.runs,
    operations: names.map((operation) => operationCost(operation, ops, calls)),
    methods: summarizeBy(
      calls,
      (c) => `${c.port}.${c.method}`,
      (c) => c.ms,
    ),
    perInvestigation: {
      wallMs: summarize(perInvestigation.wallMs),
      storeMs: summarize(perInvestigation.storeMs),
      busMs: summarize(perInvestigation.busMs),
      storeCalls: summarize(perInvestigation.storeCalls),
    },
  };
}

function operationCost(
  operation: string,
  ops: readonly OpTiming[],
  calls: readonly PortCall[],
): OperationCost {
  const mine = ops.filter((o) => o.operation === operation);
  const wall: number[] = [];
  const store: number[] = [];
  const storeCalls: number[] = [];
  const bus: number[] = [];
  const rest: number[] = [];
  for (const op of mine) {
    const own = calls.filter((c) => c.invocation === op.invocation);
    const s = own.filter((c) => c.port === "store");
    const storeMs = s.reduce((sum, c) => sum + c.ms, 0);
    const busMs = own.filter((c) => c.port === "bus").reduce((sum, c) => sum + c.ms, 0);
    wall.push(op.ms);
    store.push(storeMs);
    storeCalls.push(s.length);
    bus.push(busMs);
    rest.push(Math.max(0, op.ms - storeMs - busMs));
  }
  return {
    operation,
    invocations: mine.length,
    wallMs: summarize(wall),
    storeMs: summarize(store),
    storeCalls: summarize(storeCalls),
    busMs: summarize(bus),
    restMs: summarize(rest),
  };
}

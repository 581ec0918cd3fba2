import { ms, table } from "../lib/table.js";
import type { PipelineSection } from "../pipeline/section.js";

export function printPipeline(p: PipelineSection): string {
  const { stack, storeCost, runnerMicro } = p;
  const functions = table(
    [
      "function",
      "warm calls",
      "round trip med",
      "p95",
      "in operation med",
      "p95",
      "outside op med",
      "p95",
      "cold med",
    ],
    stack.functions.map((f) => [
      f.fn,
      f.calls,
      ms(f.roundTripMs.median),
      ms(f.roundTripMs.p95),
      ms(f.operationMs.median),
      ms(f.operationMs.p95),
      ms(f.outsideOperationMs.median),
      ms(f.outsideOperationMs.p95),
      ms(f.coldRoundTripMs.median),
    ]),
  );
  const operations = table(
    [
      "operation",
      "calls",
      "wall med",
      "p95",
      "store med",
      "p95",
      "store calls",
      "pubsub med",
      "p95",
      "rest med",
    ],
    storeCost.operations.map((o) => [
      o.operation,
      o.invocations,
      ms(o.wallMs.median),
      ms(o.wallMs.p95),
      ms(o.storeMs.median),
      ms(o.storeMs.p95),
      o.storeCalls.median,
      ms(o.busMs.median),
      ms(o.busMs.p95),
      ms(o.restMs.median),
    ]),
  );
  const methods = table(
    ["port method", "calls", "median", "p95", "max"],
    Object.entries(storeCost.methods)
      .sort((a, b) => b[1].median * b[1].n - a[1].median * a[1].n)
      .map(([name, s]) => [name, s.n, ms(s.median), ms(s.p95), ms(s.max)]),
  );
  const inv = storeCost.perInvestigation;
  const e2e = stack.endToEnd;
  const summary = table(
    ["per investigation", "median", "p95", "n"],
    [
      ["publish → concluded, first run of a stack (cold)", ms(e2e.cold.median), ms(e2e.cold.p95), e2e.cold.n],
      ["publish → concluded, later runs (warm)", ms(e2e.warm.median), ms(e2e.warm.p95), e2e.warm.n],
      [
        "publish → investigation created (push + ingest)",
        ms(e2e.publishToCreated.median),
        ms(e2e.publishToCreated.p95),
        e2e.publishToCreated.n,
      ],
      [
        "created → execution started (claim + launch)",
        ms(e2e.createdToExecution.median),
        ms(e2e.createdToExecution.p95),
        e2e.createdToExecution.n,
      ],
      [
        "workflow runner's own time per execution",
        ms(stack.runnerInStack.ownMsPerExecution.median),
        ms(stack.runnerInStack.ownMsPerExecution.p95),
        stack.runnerInStack.ownMsPerExecution.n,
      ],
      [
        "  … per function call",
        ms(stack.runnerInStack.ownMsPerCall.median),
        ms(stack.runnerInStack.ownMsPerCall.p95),
        "",
      ],
      ["in-process drive (no HTTP), wall", ms(inv.wallMs.median), ms(inv.wallMs.p95), inv.wallMs.n],
      ["  … Firestore call in flight (wall clock)", ms(inv.storeMs.median), ms(inv.storeMs.p95), ""],
      ["  … Pub/Sub publish in flight (wall clock)", ms(inv.busMs.median), ms(inv.busMs.p95), ""],
      ["  … Firestore calls", inv.storeCalls.median, inv.storeCalls.p95, ""],
      [
        "runner alone, instant functions, per execution",
        ms(runnerMicro.perExecutionMs.median),
        ms(runnerMicro.perExecutionMs.p95),
        runnerMicro.executions,
      ],
      [
        "local stack start (emulators reused)",
        ms(stack.stackStartMs.median),
        ms(stack.stackStartMs.p95),
        stack.stackStartMs.n,
      ],
    ],
  );
  return [
    "2. PIPELINE OVERHEAD — offline model, zero model latency",
    `   local stack: Pub/Sub push → ingest → workflow runner → functions, ${stack.runsPerScenario} runs per scenario`,
    "",
    functions,
    "",
    `   operations in process (same code, timed InvestigationStore and EventBus ports), ${storeCost.runsPerScenario} runs per scenario`,
    operations,
    "",
    methods,
    "",
    summary,
    "",
    `   runner microbenchmark: ${runnerMicro.callsPerExecution} calls and ${runnerMicro.stepsPerExecution} steps per execution, ${runnerMicro.perCallMs} ms of interpreter per call`,
  ].join("\n");
}

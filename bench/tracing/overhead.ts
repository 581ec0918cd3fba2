import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import type { PushMetricExporter, ResourceMetrics } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { investigateInProcess } from "../../functions/src/local/in-process-workflow.js";
import type { Model } from "../../functions/src/model/port.js";
import { traced } from "../../functions/src/model/traced.js";
import { createOfflineModel } from "../../functions/src/offline-model/index.js";
import { type DeployedTelemetry, deployedTelemetry } from "../../functions/src/platform/telemetry.js";
import type { EventBus } from "../../functions/src/ports/event-bus.js";
import { scenarioDeps } from "../agent/deps.js";
import { freshProject } from "../lib/emulators.js";
import type { BenchScenario } from "../lib/scenarios.js";
import { ratio, type Summary, summarize } from "../lib/stats.js";

/**
 * The cost of seeing (issue 39): the same scenarios, driven in this process through the
 * deployed workflow with the same offline brain, with telemetry off (no provider: the API's
 * no-op tracer and meter, as a function without FERRET_TELEMETRY_EXPORTER runs) and on (the
 * deployed path of platform/telemetry.ts: the trace-id ratio sampler at 1, a BatchSpanProcessor,
 * the metrics SDK with a periodic reader). Only Google's exporters are stood in, by ones that
 * serialize every batch to JSON and count it: the network is not measured, the SDK's work and the
 * serialization are, and every batch is flushed before the drive's clock stops, as each function
 * flushes before it answers. The arms alternate (off, on; then on, off) so drift on a shared
 * machine falls on both.
 */
export interface TracingArm {
  wallMs: Summary;
  /** This process's CPU time (user + system) per drive: less moved by other work on the machine than wall time. */
  cpuMs: Summary;
  /** Model calls over every drive of the arm, counted at the model. */
  modelCalls: number;
  /** Spans and metric data points the stand-in exporters received (0 with telemetry off). */
  spans: number;
  metricPoints: number;
}

export interface TracingSection {
  rounds: number;
  drives: number;
  off: TracingArm;
  on: TracingArm;
  /** Sum of the on drives' wall time over the off drives'. */
  overheadRatio: number;
  /** Median over (scenario, round) pairs of on / off. */
  pairedMedianRatio: number;
  /**
   * Geometric mean of the paired on / off wall-time ratios with its 95 % interval (normal
   * approximation on the logarithms): how far the run can tell the overhead from noise.
   */
  pairedGeoMean: { ratio: number; low: number; high: number };
  /** Sum of the on drives' CPU time over the off drives'. */
  cpuOverheadRatio: number;
  /** on − off: must be 0 (tracing must not change what the agent does). */
  modelCallDifference: number;
}

/** A model that counts its generate calls; the same wrapper on both arms. */
function counting(model: Model, count: { calls: number }): Model {
  return {
    get name() {
      return model.name;
    },
    get offline() {
      return model.offline;
    },
    generate: (request) => {
      count.calls += 1;
      return model.generate(request);
    },
    embed: (request) => model.embed(request),
  };
}

class SerializingSpanExporter implements SpanExporter {
  spans = 0;
  bytes = 0;
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.spans += spans.length;
    this.bytes += JSON.stringify(
      spans.map((s) => ({
        name: s.name,
        context: s.spanContext(),
        parent: s.parentSpanContext?.spanId,
        start: s.startTime,
        end: s.endTime,
        attributes: s.attributes,
        status: s.status,
      })),
    ).length;
    done({ code: ExportResultCode.SUCCESS });
  }
  async shutdown(): Promise<void> {}
}

class SerializingMetricExporter implements PushMetricExporter {
  points = 0;
  export(batch: ResourceMetrics, done: (result: ExportResult) => void): void {
    for (const scope of batch.scopeMetrics) for (const m of scope.metrics) this.points += m.dataPoints.length;
    JSON.stringify(batch.scopeMetrics);
    done({ code: ExportResultCode.SUCCESS });
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

interface Drive {
  wallMs: number;
  cpuMs: number;
  calls: number;
}

async function drive(
  scenario: BenchScenario,
  bus: EventBus,
  telemetry: DeployedTelemetry | undefined,
): Promise<Drive> {
  const count = { calls: 0 };
  const sd = await scenarioDeps({
    scenario,
    policy: {},
    // traced() as the deployed runtime wraps its model (entry/runtime.ts); a no-op with telemetry off.
    model: traced(counting(createOfflineModel(), count)),
    projectId: freshProject("tracing"),
    bus,
  });
  try {
    const id = await sd.ingest(scenario.notification);
    const started = performance.now();
    const cpu = process.cpuUsage();
    await investigateInProcess(id, sd.deps);
    if (telemetry)
      await Promise.all([telemetry.tracerProvider.forceFlush(), telemetry.meterProvider.forceFlush()]);
    const used = process.cpuUsage(cpu);
    return {
      wallMs: performance.now() - started,
      cpuMs: (used.user + used.system) / 1000,
      calls: count.calls,
    };
  } finally {
    await sd.close();
  }
}

function telemetryOn(spans: SpanExporter, points: PushMetricExporter): DeployedTelemetry {
  const telemetry = deployedTelemetry(
    {
      exporter: "google-cloud",
      traceSampleRatio: 1,
      metricExportIntervalSeconds: 60,
      projectId: "ferret-bench-tracing",
    },
    { spans: () => spans, metrics: () => points },
  );
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(telemetry.tracerProvider);
  metrics.setGlobalMeterProvider(telemetry.meterProvider);
  return telemetry;
}

async function telemetryOff(telemetry: DeployedTelemetry): Promise<void> {
  await Promise.all([telemetry.tracerProvider.shutdown(), telemetry.meterProvider.shutdown()]);
  trace.disable();
  metrics.disable();
  context.disable();
}

export async function measureTracingOverhead(options: {
  scenarios: readonly BenchScenario[];
  rounds: number;
  bus: EventBus;
  progress: (line: string) => void;
}): Promise<TracingSection> {
  const off: Drive[] = [];
  const on: Drive[] = [];
  const spans = new SerializingSpanExporter();
  const points = new SerializingMetricExporter();
  const pairs: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    for (const scenario of options.scenarios) {
      const order = round % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
      const pair: Partial<Record<"off" | "on", Drive>> = {};
      for (const arm of order) {
        if (arm === "off") pair.off = await drive(scenario, options.bus, undefined);
        else {
          const telemetry = telemetryOn(spans, points);
          try {
            pair.on = await drive(scenario, options.bus, telemetry);
          } finally {
            await telemetryOff(telemetry);
          }
        }
      }
      if (!pair.off || !pair.on) throw new Error("a drive of the pair did not run");
      off.push(pair.off);
      on.push(pair.on);
      pairs.push(pair.on.wallMs / pair.off.wallMs);
      options.progress(
        `  ${scenario.name} round ${round + 1}: off ${pair.off.wallMs.toFixed(0)} ms, on ${pair.on.wallMs.toFixed(0)} ms`,
      );
    }
  }
  // A run in which "on" recorded nothing would show no cost for the wrong reason.
  if (spans.spans === 0) throw new Error("telemetry on recorded no span: the overhead figure would be empty");
  const sum = (ds: readonly Drive[], pick: (d: Drive) => number) => ds.reduce((t, d) => t + pick(d), 0);
  const arm = (ds: readonly Drive[], spanCount: number, pointCount: number): TracingArm => ({
    wallMs: summarize(ds.map((d) => d.wallMs)),
    cpuMs: summarize(ds.map((d) => d.cpuMs)),
    modelCalls: sum(ds, (d) => d.calls),
    spans: spanCount,
    metricPoints: pointCount,
  });
  const offArm = arm(off, 0, 0);
  const onArm = arm(on, spans.spans, points.points);
  return {
    rounds: options.rounds,
    drives: off.length + on.length,
    off: offArm,
    on: onArm,
    overheadRatio: ratio(
      sum(on, (d) => d.wallMs),
      sum(off, (d) => d.wallMs),
    ),
    pairedMedianRatio: summarize(pairs).median,
    pairedGeoMean: geometricMeanInterval(pairs),
    cpuOverheadRatio: ratio(
      sum(on, (d) => d.cpuMs),
      sum(off, (d) => d.cpuMs),
    ),
    modelCallDifference: onArm.modelCalls - offArm.modelCalls,
  };
}

/** The geometric mean of ratios and a 95 % interval for it (mean ± 1.96 standard errors of the logs). */
export function geometricMeanInterval(ratios: readonly number[]): {
  ratio: number;
  low: number;
  high: number;
} {
  const logs = ratios.map(Math.log);
  const n = logs.length;
  const mean = logs.reduce((t, v) => t + v, 0) / n;
  const sd = n > 1 ? Math.sqrt(logs.reduce((t, v) => t + (v - mean) ** 2, 0) / (n - 1)) : Number.NaN;
  const half = (1.96 * sd) / Math.sqrt(n);
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    ratio: round(Math.exp(mean)),
    low: round(Math.exp(mean - half)),
    high: round(Math.exp(mean + half)),
  };
}

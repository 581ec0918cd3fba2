import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { metrics, trace } from "@opentelemetry/api";
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import fc from "fast-check";
import { loadConfig } from "../../../functions/src/config/config.js";
import {
  type CloudExporters,
  deployedTelemetry,
  GCP_PROJECT_ID,
  type TelemetrySettings,
  telemetryDestinations,
} from "../../../functions/src/platform/telemetry.js";
import { investigationContext } from "../../../functions/src/platform/tracing.js";

/**
 * Which way spans and metrics go, and the sampler, with the cloud exporters stood in by the SDK's
 * in-memory ones: nothing here opens a connection. The settings come from the configuration as
 * Terraform sets it (FERRET_TELEMETRY_EXPORTER), so the parsing is tested with the choice.
 */
const PROJECT = "ferret-test";

function settingsFrom(env: Record<string, string>, traceFile?: string): TelemetrySettings {
  const config = loadConfig({ env });
  return { ...config.telemetry, projectId: PROJECT, ...(traceFile ? { traceFile } : {}) };
}

function standIns() {
  const spans = new InMemorySpanExporter();
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const asked: string[] = [];
  const exporters: CloudExporters = {
    spans: (projectId) => {
      asked.push(`spans:${projectId}`);
      return spans;
    },
    metrics: (projectId) => {
      asked.push(`metrics:${projectId}`);
      return metricExporter;
    },
  };
  return { spans, metricExporter, exporters, asked };
}

/** One role call of an investigation, as a function process opens it, with one child inside. */
async function oneCall(
  telemetry: ReturnType<typeof deployedTelemetry>,
  investigationId: string,
): Promise<void> {
  const tracer = telemetry.tracerProvider.getTracer("ferret");
  const parent = tracer.startSpan("planning.generate_action_plan", {}, investigationContext(investigationId));
  tracer
    .startSpan("chat offline-playbook", {}, trace.setSpan(investigationContext(investigationId), parent))
    .end();
  parent.end();
  await telemetry.tracerProvider.forceFlush();
}

describe("where telemetry goes", () => {
  it("by default nowhere; the local stack's span file wins over the exporter setting", () => {
    assert.deepEqual(telemetryDestinations(settingsFrom({})), { traces: "none", metrics: "none" });
    assert.deepEqual(telemetryDestinations(settingsFrom({ FERRET_TELEMETRY_EXPORTER: "google-cloud" })), {
      traces: "cloud-trace",
      metrics: "cloud-monitoring",
    });
    assert.deepEqual(
      telemetryDestinations(settingsFrom({ FERRET_TELEMETRY_EXPORTER: "google-cloud" }, "/tmp/t.jsonl")),
      { traces: "file", metrics: "none" },
    );
  });

  it("the configuration refuses an unknown exporter and a ratio outside [0, 1], naming the variable", () => {
    assert.throws(
      () => loadConfig({ env: { FERRET_TELEMETRY_EXPORTER: "cloud-trace" } }),
      /FERRET_TELEMETRY_EXPORTER/,
    );
    assert.throws(
      () => loadConfig({ env: { FERRET_TRACE_SAMPLE_RATIO: "1.5" } }),
      /FERRET_TRACE_SAMPLE_RATIO/,
    );
    assert.equal(
      loadConfig({ env: {} }).telemetry.traceSampleRatio,
      1,
      "every investigation by default (0055)",
    );
  });

  it("deployed, spans go through the span exporter it was given, in a batch, under a resource naming the project", async () => {
    const { spans, exporters, asked } = standIns();
    const telemetry = deployedTelemetry(
      settingsFrom({ FERRET_TELEMETRY_EXPORTER: "google-cloud" }),
      exporters,
    );
    assert.deepEqual(asked.sort(), [`metrics:${PROJECT}`, `spans:${PROJECT}`]);
    const tracer = telemetry.tracerProvider.getTracer("ferret");
    tracer.startSpan("execution.execute_action", {}, investigationContext("inv-a")).end();
    assert.equal(spans.getFinishedSpans().length, 0, "a BatchSpanProcessor holds spans until its batch goes");
    await telemetry.tracerProvider.forceFlush();
    assert.deepEqual(
      spans.getFinishedSpans().map((s) => s.name),
      ["execution.execute_action"],
    );
    // The Telemetry API stores a span in the project its resource names (decision 0055).
    assert.equal(spans.getFinishedSpans()[0]?.resource.attributes[GCP_PROJECT_ID], PROJECT);
    await telemetry.tracerProvider.shutdown();
    await telemetry.meterProvider.shutdown();
  });

  it("deployed, metrics go through the Cloud Monitoring exporter it was given", async () => {
    const { metricExporter, exporters } = standIns();
    const telemetry = deployedTelemetry(
      settingsFrom({ FERRET_TELEMETRY_EXPORTER: "google-cloud" }),
      exporters,
    );
    telemetry.meterProvider.getMeter("ferret").createHistogram("ferret.phase.duration").record(2.5);
    await telemetry.meterProvider.forceFlush();
    const exported = metricExporter
      .getMetrics()
      .flatMap((rm: ResourceMetrics) => rm.scopeMetrics.flatMap((sm) => sm.metrics));
    const histogram = exported.find((m) => m.descriptor.name === "ferret.phase.duration");
    assert.equal(histogram?.dataPointType, DataPointType.HISTOGRAM);
    await telemetry.tracerProvider.shutdown();
    await telemetry.meterProvider.shutdown();
  });
});

describe("the sampler keeps or drops an investigation whole", () => {
  it("ratio 0 exports nothing and ratio 1 everything, although ferret marks the remote parent as sampled", async () => {
    for (const [ratio, expected] of [
      [0, 0],
      [1, 2],
    ] as const) {
      const { spans, exporters } = standIns();
      const telemetry = deployedTelemetry(
        settingsFrom({ FERRET_TELEMETRY_EXPORTER: "google-cloud", FERRET_TRACE_SAMPLE_RATIO: String(ratio) }),
        exporters,
      );
      await oneCall(telemetry, "inv-0123456789abcdef01234567");
      assert.equal(spans.getFinishedSpans().length, expected, `ratio ${ratio}`);
      await telemetry.tracerProvider.shutdown();
      await telemetry.meterProvider.shutdown();
    }
  });

  it("for any investigation and ratio, two processes make the same decision, and a call's children follow it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (id, ratio) => {
          const env = { FERRET_TELEMETRY_EXPORTER: "google-cloud", FERRET_TRACE_SAMPLE_RATIO: String(ratio) };
          const [a, b] = [standIns(), standIns()];
          const [ta, tb] = [
            deployedTelemetry(settingsFrom(env), a.exporters),
            deployedTelemetry(settingsFrom(env), b.exporters),
          ];
          await oneCall(ta, id);
          await oneCall(tb, id);
          const kept = a.spans.getFinishedSpans().length;
          assert.ok(kept === 0 || kept === 2, "a call and its child are kept or dropped together");
          assert.equal(b.spans.getFinishedSpans().length, kept, "the other process decides alike");
          await Promise.all(
            [ta, tb].flatMap((t) => [t.tracerProvider.shutdown(), t.meterProvider.shutdown()]),
          );
        },
      ),
      { seed: 55, numRuns: 60 },
    );
  });

  it("keeps about the configured share of investigations", async () => {
    const { spans, exporters } = standIns();
    const telemetry = deployedTelemetry(
      settingsFrom({ FERRET_TELEMETRY_EXPORTER: "google-cloud", FERRET_TRACE_SAMPLE_RATIO: "0.25" }),
      exporters,
    );
    const n = 800;
    for (let i = 0; i < n; i++) await oneCall(telemetry, `inv-${i}`);
    const kept = spans.getFinishedSpans().length / 2 / n;
    // Binomial(800, 0.25): the standard deviation is about 0.015; 4 of them either side.
    assert.ok(Math.abs(kept - 0.25) < 0.06, `kept ${kept}`);
    await telemetry.tracerProvider.shutdown();
    await telemetry.meterProvider.shutdown();
  });
});

// The global providers stay unset here: metrics.getMeter is the API's no-op.
it("nothing is registered globally by building the providers", () => {
  assert.equal(metrics.getMeterProvider().constructor.name, "NoopMeterProvider");
});

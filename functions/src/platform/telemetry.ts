import { randomUUID } from "node:crypto";
import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { ATTR_SERVICE_INSTANCE_ID } from "@opentelemetry/semantic-conventions/incubating";
import { flushOnRequestEnd } from "./telemetry-flush.js";

/**
 * Where a function's spans and metrics go when deployed (docs/decisions/0055): with
 * `telemetry.exporter: google-cloud`, spans to Cloud Trace through a BatchSpanProcessor (over
 * OTLP to the Telemetry API) and metrics to Cloud Monitoring through a periodic reader
 * (platform/google-cloud-exporters.ts, loaded only then). Locally the span file
 * (platform/trace-file.ts) is used instead and no metric leaves the process. The exporters are
 * parameters so tests stand them in and nothing here opens a connection.
 */

export interface TelemetrySettings {
  exporter: "none" | "google-cloud";
  traceSampleRatio: number;
  metricExportIntervalSeconds: number;
  /** The local stack's span file; wins over the exporter setting (a local run exports nothing). */
  traceFile?: string;
  projectId: string;
}

export type TraceDestination = "file" | "cloud-trace" | "none";
export type MetricDestination = "cloud-monitoring" | "none";

/** Which way spans and metrics go for these settings. */
export function telemetryDestinations(settings: TelemetrySettings): {
  traces: TraceDestination;
  metrics: MetricDestination;
} {
  if (settings.traceFile) return { traces: "file", metrics: "none" };
  if (settings.exporter === "google-cloud") return { traces: "cloud-trace", metrics: "cloud-monitoring" };
  return { traces: "none", metrics: "none" };
}

/**
 * Keeps a ratio of investigations, whole. Every span ferret opens for an investigation is a
 * child of the investigation's root, a remote parent derived from its id (platform/tracing.ts),
 * so the decision for a remote parent is the trace-id ratio itself rather than the parent's
 * flag (which ferret sets, not a caller): TraceIdRatioBasedSampler decides from the trace id
 * alone, and the trace id is a digest of the investigation id, so every function of every
 * investigation makes the same decision. Local children follow their parent (the default of
 * ParentBasedSampler).
 */
export function investigationSampler(ratio: number): Sampler {
  const byTraceId = new TraceIdRatioBasedSampler(ratio);
  return new ParentBasedSampler({
    root: byTraceId,
    remoteParentSampled: byTraceId,
    remoteParentNotSampled: byTraceId,
  });
}

/** The resource attribute the Telemetry API reads the destination project from. */
export const GCP_PROJECT_ID = "gcp.project_id";

export interface CloudExporters {
  spans(projectId: string): SpanExporter;
  metrics(projectId: string): PushMetricExporter;
}

export interface DeployedTelemetry {
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
}

/** The providers for spans and metrics, not yet registered. */
export function deployedTelemetry(settings: TelemetrySettings, exporters: CloudExporters): DeployedTelemetry {
  // An instance id of its own per process: Google's metric exporter then writes to a generic_task
  // resource per instance (opentelemetry-resource-util's mapping), so instances running at once
  // never write points to the same cumulative time series. `gcp.project_id` names the project the
  // Telemetry API stores the spans in (OTEL_RESOURCE_ATTRIBUTES in GoogleCloudPlatform/
  // opentelemetry-operations-js samples/otlptraceexport/README.md at 13df44f4).
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: "ferret",
    [ATTR_SERVICE_INSTANCE_ID]: randomUUID(),
    [GCP_PROJECT_ID]: settings.projectId,
  });
  return {
    tracerProvider: new BasicTracerProvider({
      resource,
      sampler: investigationSampler(settings.traceSampleRatio),
      spanProcessors: [new BatchSpanProcessor(exporters.spans(settings.projectId))],
    }),
    meterProvider: new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: exporters.metrics(settings.projectId),
          exportIntervalMillis: settings.metricExportIntervalSeconds * 1000,
        }),
      ],
    }),
  };
}

let registered: DeployedTelemetry | undefined;

/**
 * Builds and registers the deployed providers for this process, once: later calls (a second
 * runtime in one process, as the parity tests build) keep the first.
 */
export function startDeployedTelemetry(settings: TelemetrySettings, exporters: CloudExporters): void {
  if (registered) return;
  const telemetry = deployedTelemetry(settings, exporters);
  registered = telemetry;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(telemetry.tracerProvider);
  metrics.setGlobalMeterProvider(telemetry.meterProvider);
  // Each role's handler flushes before it answers (entry/role-handler.ts), so nothing waits for
  // a throttled instance; no SIGTERM hook, which would keep the process from exiting on it.
  flushOnRequestEnd([telemetry.tracerProvider, telemetry.meterProvider]);
}

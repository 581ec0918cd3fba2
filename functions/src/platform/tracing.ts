import { createHash } from "node:crypto";
import {
  type Attributes,
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import { type HistogramSpec, recordHistogram } from "./meters.js";

/**
 * OpenTelemetry spans for an investigation (issue 39). Every process derives the
 * investigation's trace from its id — the trace id and the id of the investigation's root span
 * are digests of it — so the spans of ingest, each role call of the workflow, the notifier and
 * the analyst's click join one trace with nothing carried through Pub/Sub attributes or the
 * workflow's HTTP calls, and a redelivered message lands in the same trace. Without a
 * registered provider (platform/trace-file.ts) the API's no-op tracer records nothing.
 *
 * Spans carry names, timings, counts, model ids and tool names: never a secret, a prompt, a log
 * row or a finding field.
 */
/** The instrumentation scope of every span ferret opens. */
export const TRACER_NAME = "ferret";
const TRACER = TRACER_NAME;

export interface InvestigationTraceIds {
  traceId: string;
  rootSpanId: string;
}

/** The trace and root span ids of an investigation, the same in every process. */
export function investigationTraceIds(investigationId: string): InvestigationTraceIds {
  const digest = createHash("sha256").update(`ferret trace\n${investigationId}`).digest("hex");
  return { traceId: digest.slice(0, 32), rootSpanId: digest.slice(32, 48) };
}

/** A context whose parent is the investigation's root span, as a remote parent. */
export function investigationContext(investigationId: string): Context {
  const ids = investigationTraceIds(investigationId);
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: ids.traceId,
    spanId: ids.rootSpanId,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

async function runIn<T>(
  parent: Context,
  name: string,
  attributes: Attributes,
  run: (span: Span) => Promise<T>,
) {
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, parent, async (span) => {
    try {
      return await run(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Adds attributes to the span the current call runs in, for what a call learns only as it runs
 * (whether a reflector call evaluated anything). Without an active span it does nothing.
 */
export function annotateActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** The time of each phase's calls, by the phase its span names (the part before the dot). */
export const PHASE_DURATION: HistogramSpec = {
  name: "ferret.phase.duration",
  description: "time of one call of an investigation's phase (planning, execution, reflection, ...)",
  unit: "s",
  boundaries: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
};

/**
 * Runs `run` in a span that is a child of the investigation's root span, and records its time
 * on the phase's histogram whether or not a trace is exported (metrics are not sampled).
 */
export async function inInvestigationSpan<T>(
  investigationId: string,
  name: string,
  attributes: Attributes,
  run: (span: Span) => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let ok = false;
  try {
    const result = await runIn(
      investigationContext(investigationId),
      name,
      { "ferret.investigation_id": investigationId, ...attributes },
      run,
    );
    ok = true;
    return result;
  } finally {
    recordHistogram(PHASE_DURATION, (performance.now() - started) / 1000, {
      "ferret.phase": name.split(".")[0] ?? name,
      "ferret.ok": ok,
    });
  }
}

/** Runs `run` in a span that is a child of the active one (a model or tool call inside a role's span). */
export function inSpan<T>(name: string, attributes: Attributes, run: (span: Span) => Promise<T>): Promise<T> {
  return runIn(context.active(), name, attributes, run);
}

/**
 * A span recorded after the fact, for work that learns which investigation it served only at
 * its end (ingest names the investigation once it has read the finding).
 */
export function recordInvestigationSpan(
  investigationId: string,
  name: string,
  attributes: Attributes,
  startMs: number,
  endMs: number,
): void {
  trace
    .getTracer(TRACER)
    .startSpan(
      name,
      // As Dates: OpenTelemetry reads a bare number no larger than performance.now() as a
      // monotonic offset rather than wall-clock milliseconds.
      {
        attributes: { "ferret.investigation_id": investigationId, ...attributes },
        startTime: new Date(startMs),
      },
      investigationContext(investigationId),
    )
    .end(new Date(endMs));
}

import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { type ExportResult, ExportResultCode, hrTimeToMilliseconds } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import { z } from "zod";
import { TRACER_NAME } from "./tracing.js";

/**
 * Spans written to a file, one JSON object per line: where the local stack, the demo and
 * `ferret eval` keep an investigation's trace (the run directory's traces.jsonl). The SDK ships
 * no file exporter; this one is a few lines (docs/decisions/0051). Each function process
 * appends its own spans; an append of one short line is one write, so processes do not
 * interleave inside a line.
 */

export const SpanRecordSchema = z.object({
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().optional(),
  name: z.string(),
  startMs: z.number(),
  endMs: z.number(),
  ok: z.boolean(),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])),
});
export type SpanRecord = z.infer<typeof SpanRecordSchema>;

function record(span: ReadableSpan): SpanRecord {
  const attributes: SpanRecord["attributes"] = {};
  for (const [key, value] of Object.entries(span.attributes)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      attributes[key] = value;
    else if (Array.isArray(value)) attributes[key] = value.map(String);
  }
  const parent = span.parentSpanContext?.spanId;
  return {
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    ...(parent ? { parentSpanId: parent } : {}),
    name: span.name,
    startMs: hrTimeToMilliseconds(span.startTime),
    endMs: hrTimeToMilliseconds(span.endTime),
    ok: span.status.code !== 2,
    attributes,
  };
}

class JsonLinesSpanExporter implements SpanExporter {
  constructor(private readonly path: string) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      // ferret's own spans only: client libraries that find a global provider (Firestore's
      // does) would add their internals, whose parents may never reach this file.
      const own = spans.filter((s) => s.instrumentationScope.name === TRACER_NAME);
      if (own.length > 0)
        appendFileSync(this.path, own.map((s) => `${JSON.stringify(record(s))}\n`).join(""));
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({
        code: ExportResultCode.FAILED,
        error: error instanceof Error ? error : new Error(String(error)),
      });
    }
  }

  async shutdown(): Promise<void> {}
}

let started = false;

/** Records this process's spans to `path` (once per process; later calls are ignored). */
export function startFileTracing(path: string): void {
  if (started) return;
  started = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new JsonLinesSpanExporter(path))] }),
  );
}

/** The spans a trace file holds; lines that do not parse are skipped (a process killed mid-write). */
export function readSpanFile(path: string): SpanRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .flatMap((line) => {
      if (!line.trim()) return [];
      try {
        const parsed = SpanRecordSchema.safeParse(JSON.parse(line));
        return parsed.success ? [parsed.data] : [];
      } catch {
        return [];
      }
    });
}

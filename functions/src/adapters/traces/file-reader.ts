import type { TraceReader } from "../../console/ports.js";

/**
 * The console's spans from a JSON Lines trace file: the one the local stack's functions append
 * to (`<run dir>/traces.jsonl`, platform/trace-file.ts). The file is read whole on each page: it
 * holds one run's spans, and a span written since the last view shows on the next. The reader
 * module (it imports the OpenTelemetry SDK to write spans) loads with the first page that reads
 * one, so a console without a trace file never loads it.
 */
export function fileTraceReader(path: string): TraceReader {
  return {
    source: `the trace file ${path}`,
    spans: async (traceId) => {
      const { readSpanFile } = await import("../../platform/trace-file.js");
      return readSpanFile(path).filter((s) => s.traceId === traceId);
    },
  };
}

/** No span store: what the console says where none is configured (deployed, until Cloud Trace is read). */
export function noTraceReader(why: string): TraceReader {
  return { source: why, spans: async () => [] };
}

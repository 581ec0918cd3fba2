import type { SpanRecord } from "../platform/trace-file.js";
import { investigationTraceIds } from "../platform/tracing.js";

/**
 * Where an investigation's time went, from its trace (issue 39): each phase span (ingest,
 * planning, execution, reflection, conclusion, notification) with how often it ran and for how
 * long, and inside them the model calls, tool calls and warehouse queries. Waits are the wall
 * time no phase span covers (queues, the workflow between calls, retries' backoff).
 */
export interface PhaseTime {
  name: string;
  count: number;
  totalMs: number;
  failed: number;
}

export interface Timeline {
  traceId: string;
  spans: number;
  wallMs: number;
  /** Wall time covered by no phase span. */
  waitMs: number;
  phases: PhaseTime[];
  modelCalls: { count: number; totalMs: number; inputTokens: number; outputTokens: number };
  toolCalls: { count: number; totalMs: number };
  queries: { count: number; totalMs: number; bytesScanned: number };
}

/**
 * The stretches of [start, end] that none of `intervals` covers: the waits of a trace when the
 * intervals are its phase spans. The one definition of a wait, for the demo's summary below and
 * the console's timeline (console/trace-layout.ts).
 */
export function uncoveredGaps(
  intervals: readonly (readonly [number, number])[],
  start: number,
  end: number,
): [number, number][] {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  const gaps: [number, number][] = [];
  let reached = start;
  for (const [from, to] of sorted) {
    if (from > reached) gaps.push([reached, Math.min(from, end)]);
    reached = Math.max(reached, to);
    if (reached >= end) break;
  }
  if (reached < end) gaps.push([reached, end]);
  return gaps.filter(([from, to]) => to > from);
}

/**
 * What kind of call a span is, from what its instrumentation gives it: OpenTelemetry's GenAI
 * operation names a model call (`chat`) or a tool call (`execute_tool`); a warehouse query is
 * the span tools/log-pages.ts opens around each page it reads.
 */
export function callKind(span: SpanRecord): "model" | "tool" | "query" | undefined {
  const operation = span.attributes["gen_ai.operation.name"];
  if (operation === "chat") return "model";
  if (operation === "execute_tool") return "tool";
  return span.name === "log_warehouse.query" ? "query" : undefined;
}

const num = (value: unknown) => (typeof value === "number" ? value : 0);

/** The investigation's timeline, or undefined when the spans hold none of its trace. */
export function investigationTimeline(
  spans: readonly SpanRecord[],
  investigationId: string,
): Timeline | undefined {
  const { traceId, rootSpanId } = investigationTraceIds(investigationId);
  const mine = spans.filter((s) => s.traceId === traceId);
  if (mine.length === 0) return undefined;
  const phaseSpans = mine.filter((s) => s.parentSpanId === rootSpanId);
  const phases = new Map<string, PhaseTime>();
  for (const s of phaseSpans) {
    const phase = phases.get(s.name) ?? { name: s.name, count: 0, totalMs: 0, failed: 0 };
    phase.count += 1;
    phase.totalMs += s.endMs - s.startMs;
    if (!s.ok) phase.failed += 1;
    phases.set(s.name, phase);
  }
  const start = Math.min(...mine.map((s) => s.startMs));
  const end = Math.max(...mine.map((s) => s.endMs));
  const models = mine.filter((s) => callKind(s) === "model");
  const tools = mine.filter((s) => callKind(s) === "tool");
  const queries = mine.filter((s) => callKind(s) === "query");
  const sum = (list: readonly SpanRecord[]) => list.reduce((t, s) => t + (s.endMs - s.startMs), 0);
  return {
    traceId,
    spans: mine.length,
    wallMs: end - start,
    waitMs: uncoveredGaps(
      phaseSpans.map((s) => [s.startMs, s.endMs]),
      start,
      end,
    ).reduce((t, [from, to]) => t + (to - from), 0),
    phases: [...phases.values()].sort((a, b) => b.totalMs - a.totalMs),
    modelCalls: {
      count: models.length,
      totalMs: sum(models),
      inputTokens: models.reduce((t, s) => t + num(s.attributes["gen_ai.usage.input_tokens"]), 0),
      outputTokens: models.reduce((t, s) => t + num(s.attributes["gen_ai.usage.output_tokens"]), 0),
    },
    toolCalls: { count: tools.length, totalMs: sum(tools) },
    queries: {
      count: queries.length,
      totalMs: sum(queries),
      bytesScanned: queries.reduce((t, s) => t + num(s.attributes["ferret.bytes_scanned"]), 0),
    },
  };
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The timeline as lines a person reads at the end of a run. */
export function timelineLines(t: Timeline): string[] {
  return [
    `Where the time went (trace ${t.traceId}, ${t.spans} spans): ${secs(t.wallMs)} wall, ${secs(t.waitMs)} between phases (queues, the workflow, backoff)`,
    ...t.phases.map(
      (p) =>
        `  ${p.name.padEnd(30)} ${String(p.count).padStart(3)}×  ${secs(p.totalMs).padStart(8)}${p.failed ? `  (${p.failed} failed)` : ""}`,
    ),
    `  model calls ${t.modelCalls.count} (${secs(t.modelCalls.totalMs)}${t.modelCalls.inputTokens + t.modelCalls.outputTokens > 0 ? `, ${t.modelCalls.inputTokens} tokens in, ${t.modelCalls.outputTokens} out` : ", no tokens: the offline model"}), tool calls ${t.toolCalls.count} (${secs(t.toolCalls.totalMs)}), warehouse queries ${t.queries.count} (${secs(t.queries.totalMs)}, ${t.queries.bytesScanned} bytes scanned)`,
  ];
}

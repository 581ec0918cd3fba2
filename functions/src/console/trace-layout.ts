import { callKind, uncoveredGaps } from "../app/timeline.js";
import type { SpanRecord } from "../platform/trace-file.js";

/**
 * An investigation's trace as a waterfall on one time axis: one row per span, in tree order
 * (a span, then its children by start time, each a level deeper), with the waits — wall time no
 * phase covers (app/timeline.ts) — as rows of their own among the phases. A bar's left edge and
 * width are percentages of the trace's wall time, so widths are proportional to durations; each
 * row holds one bar, so bars overlap only in time, never on the page. Only numbers, enum values
 * and the spans' own strings come out of here; the template renders the strings as escaped text.
 */
export type BarKind = "phase" | "step" | "model" | "tool" | "query" | "wait" | "other";

export interface TraceRow {
  kind: BarKind;
  /** The span's id; "" for a wait. */
  spanId: string;
  /** The span's name, or what a wait is. */
  name: string;
  /** The step a span worked on (`ferret.step_id`), or "". */
  stepId: string;
  /** Indentation level: 0 for phases and waits, one more per parent. */
  depth: number;
  leftPct: number;
  widthPct: number;
  /** Milliseconds from the trace's first start. */
  offsetMs: number;
  durationMs: number;
  ok: boolean;
  /** Every attribute as `key=value`, for the bar's tooltip. */
  attributes: string[];
}

export interface AxisTick {
  leftPct: number;
  label: string;
}

export interface TraceLayout {
  wallMs: number;
  /** Wall time no phase covers: the waits' total, capped rows or not. */
  waitMs: number;
  spans: number;
  rows: TraceRow[];
  ticks: AxisTick[];
  /** Spans past the row cap, counted rather than drawn. */
  hidden: number;
}

/** A trace of a few hundred spans is readable; a runaway one is cut, and the cut is said. */
export const MAX_ROWS = 400;
/** Deeper levels share the last indentation class (console.css has d-0 … d-6). */
const MAX_DEPTH_CLASS = 6;

/**
 * What a span is, from the properties its instrumentation gives it: a model, tool or query call
 * (app/timeline.ts's one reading of them), a role call that worked on a step (`ferret.step_id`),
 * or else a phase when it hangs off the investigation's root.
 */
function kindOf(span: SpanRecord, topLevel: boolean): BarKind {
  const call = callKind(span);
  if (call) return call;
  if (typeof span.attributes["ferret.step_id"] === "string") return "step";
  return topLevel ? "phase" : "other";
}

function attributeText(span: SpanRecord): string[] {
  return Object.entries(span.attributes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(",") : String(value)}`);
}

/** 1, 2 or 5 times a power of ten: the step that gives at most `most` intervals over `span`. */
function tickStep(spanMs: number, most: number): number {
  const raw = spanMs / most;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

export function tickLabel(ms: number): string {
  if (ms === 0) return "0";
  if (ms < 1_000) return `${Number(ms.toPrecision(3))} ms`;
  if (ms < 60_000) return `${Number((ms / 1_000).toPrecision(3))} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1_000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

export function durationText(ms: number): string {
  if (ms === 0) return "0 ms";
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  return tickLabel(ms);
}

/** The axis: ticks at a round step from 0 to the wall time. */
export function axisTicks(wallMs: number, most = 8): AxisTick[] {
  if (!(wallMs > 0)) return [{ leftPct: 0, label: "0" }];
  const step = tickStep(wallMs, most);
  const ticks: AxisTick[] = [];
  // Multiples of the step, not repeated sums, so no rounding creeps along the axis.
  for (let i = 0; i * step <= wallMs; i++)
    ticks.push({ leftPct: ((i * step) / wallMs) * 100, label: tickLabel(i * step) });
  return ticks;
}

/**
 * The waterfall of `spans` (one trace's), whose phases are the children of `rootSpanId`. A span
 * whose parent is not among them (the root itself is never recorded; a process may have died
 * before writing its span) is drawn at the top level; a parent chain that loops is cut where
 * it would repeat, so every span is drawn exactly once.
 */
export function traceLayout(spans: readonly SpanRecord[], rootSpanId: string): TraceLayout | undefined {
  if (spans.length === 0) return undefined;
  // A span's end before its start is a broken record: drawn as an instant, never a negative bar.
  const endOf = (s: SpanRecord) => Math.max(s.startMs, s.endMs);
  const start = spans.reduce((t, s) => Math.min(t, s.startMs), Number.POSITIVE_INFINITY);
  const end = spans.reduce((t, s) => Math.max(t, endOf(s)), Number.NEGATIVE_INFINITY);
  const wallMs = end - start;
  const pct = (ms: number) => (wallMs > 0 ? (ms / wallMs) * 100 : 0);
  const byStart = (a: SpanRecord, b: SpanRecord) => a.startMs - b.startMs || endOf(a) - endOf(b);

  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, SpanRecord[]>();
  const top: SpanRecord[] = [];
  for (const span of spans) {
    const parent = span.parentSpanId;
    if (parent === undefined || parent === rootSpanId || parent === span.spanId || !ids.has(parent))
      top.push(span);
    else {
      const siblings = children.get(parent);
      if (siblings) siblings.push(span);
      else children.set(parent, [span]);
    }
  }

  const rows: TraceRow[] = [];
  const bar = (from: number, to: number) => ({
    leftPct: pct(from - start),
    widthPct: pct(to - from),
    offsetMs: from - start,
    durationMs: to - from,
  });
  const drawn = new Set<SpanRecord>();
  const visit = (span: SpanRecord, depth: number) => {
    if (drawn.has(span)) return;
    drawn.add(span);
    const stepId = span.attributes["ferret.step_id"];
    rows.push({
      kind: kindOf(span, depth === 0),
      spanId: span.spanId,
      name: span.name,
      stepId: typeof stepId === "string" ? stepId : "",
      depth: Math.min(depth, MAX_DEPTH_CLASS),
      ...bar(span.startMs, endOf(span)),
      ok: span.ok,
      attributes: attributeText(span),
    });
    for (const child of [...(children.get(span.spanId) ?? [])].sort(byStart)) visit(child, depth + 1);
  };
  const waitRow = ([from, to]: [number, number]): TraceRow => ({
    kind: "wait",
    spanId: "",
    name: "wait: no phase running",
    stepId: "",
    depth: 0,
    ...bar(from, to),
    ok: true,
    attributes: ["queues, the workflow between calls, retries' backoff"],
  });

  // The waits between the phases, placed in time order among the top-level spans.
  const waits = uncoveredGaps(
    spans.filter((s) => s.parentSpanId === rootSpanId).map((s) => [s.startMs, endOf(s)]),
    start,
    end,
  );
  const entries = [
    ...top.map((span) => ({ at: span.startMs, end: endOf(span), span })),
    ...waits.map((gap) => ({ at: gap[0], end: gap[1], gap })),
  ].sort((a, b) => a.at - b.at || a.end - b.end);
  for (const entry of entries) {
    if ("gap" in entry) rows.push(waitRow(entry.gap));
    else visit(entry.span, 0);
  }
  // Spans reachable only through a loop of parents: drawn at the top level.
  for (const span of [...spans].sort(byStart)) visit(span, 0);

  return {
    wallMs,
    waitMs: waits.reduce((t, [from, to]) => t + (to - from), 0),
    spans: spans.length,
    rows: rows.slice(0, MAX_ROWS),
    ticks: axisTicks(wallMs),
    hidden: Math.max(0, rows.length - MAX_ROWS),
  };
}

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { investigationTimeline } from "../../../functions/src/app/timeline.js";
import {
  axisTicks,
  MAX_ROWS,
  type TraceRow,
  traceLayout,
} from "../../../functions/src/console/trace-layout.js";
import type { SpanRecord } from "../../../functions/src/platform/trace-file.js";
import { investigationTraceIds } from "../../../functions/src/platform/tracing.js";

const ID = "inv-0123456789abcdef01234567";
const { traceId, rootSpanId } = investigationTraceIds(ID);
const EPS = 1e-9;

/**
 * A random trace: span i's parent is the investigation's root, an earlier span, or a span that
 * never reached the store; starts and durations in fractional milliseconds, some instants.
 */
const traceArb = fc
  .array(
    fc.record({
      parent: fc.oneof(fc.constant(-1), fc.nat(), fc.constant(-2)),
      start: fc.double({ min: 0, max: 600_000, noNaN: true }),
      duration: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 120_000, noNaN: true })),
      kind: fc.constantFrom("chat", "execute_tool", "query", "step", "plain"),
      ok: fc.boolean(),
    }),
    { minLength: 1, maxLength: 60 },
  )
  .map((specs) =>
    specs.map((spec, i): SpanRecord => {
      const parentSpanId =
        spec.parent === -1 || i === 0
          ? rootSpanId
          : spec.parent === -2
            ? "feedfacefeedface"
            : `s${String(spec.parent % i).padStart(15, "0")}`;
      const attributes: SpanRecord["attributes"] =
        spec.kind === "chat" || spec.kind === "execute_tool"
          ? { "gen_ai.operation.name": spec.kind }
          : spec.kind === "step"
            ? { "ferret.step_id": `step-${i}` }
            : {};
      return {
        traceId,
        spanId: `s${String(i).padStart(15, "0")}`,
        parentSpanId,
        name: spec.kind === "query" ? "log_warehouse.query" : `span ${i}`,
        startMs: 1.7e12 + spec.start,
        endMs: 1.7e12 + spec.start + spec.duration,
        ok: spec.ok,
        attributes,
      };
    }),
  );

const spanRows = (rows: readonly TraceRow[]) => rows.filter((r) => r.kind !== "wait");
const rowOf = (rows: readonly TraceRow[], span: SpanRecord) =>
  spanRows(rows).findIndex((r) => r.spanId === span.spanId);

describe("the console's trace waterfall", () => {
  it("draws every span exactly once, with its left edge and width proportional to its start and duration", () => {
    fc.assert(
      fc.property(traceArb, (spans) => {
        const layout = traceLayout(spans, rootSpanId);
        assert.ok(layout);
        const start = Math.min(...spans.map((s) => s.startMs));
        const wall = Math.max(...spans.map((s) => s.endMs)) - start;
        assert.ok(Math.abs(layout.wallMs - wall) < EPS * Math.max(1, wall));
        const drawn = spanRows(layout.rows);
        assert.deepEqual(drawn.map((r) => r.spanId).sort(), spans.map((s) => s.spanId).sort());
        for (const span of spans) {
          const row = drawn[rowOf(layout.rows, span)] as TraceRow;
          const duration = span.endMs - span.startMs;
          const scale = wall > 0 ? 100 / wall : 0;
          assert.ok(Math.abs(row.widthPct - duration * scale) < 1e-6, "width ∝ duration");
          assert.ok(Math.abs(row.leftPct - (span.startMs - start) * scale) < 1e-6, "left ∝ start");
        }
        for (const row of layout.rows) {
          assert.ok(row.leftPct >= -EPS && row.widthPct >= 0, "never left of the axis, never negative");
          assert.ok(row.leftPct + row.widthPct <= 100 + 1e-6, "never past the axis's end");
        }
      }),
      { seed: 56, numRuns: 300 },
    );
  });

  it("lists a span after its parent, one level deeper; top-level rows are in time order", () => {
    fc.assert(
      fc.property(traceArb, (spans) => {
        const layout = traceLayout(spans, rootSpanId);
        assert.ok(layout);
        const byId = new Map(spans.map((s) => [s.spanId, s]));
        const drawn = spanRows(layout.rows);
        for (const span of spans) {
          const row = drawn[rowOf(layout.rows, span)] as TraceRow;
          const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
          if (!parent) {
            assert.equal(row.depth, 0, "a phase, or a span whose parent never reached the store");
            continue;
          }
          assert.ok(rowOf(layout.rows, parent) < rowOf(layout.rows, span), "after its parent");
          const parentRow = drawn[rowOf(layout.rows, parent)] as TraceRow;
          assert.equal(row.depth, Math.min(parentRow.depth + 1, 6));
        }
        const top = layout.rows.filter((r) => r.depth === 0).map((r) => r.offsetMs);
        assert.deepEqual(
          top,
          [...top].sort((a, b) => a - b),
        );
      }),
      { seed: 57, numRuns: 300 },
    );
  });

  it("waits fill exactly the wall time no phase covers: never over a phase, never over each other, as the demo's summary counts them", () => {
    fc.assert(
      fc.property(traceArb, (spans) => {
        const layout = traceLayout(spans, rootSpanId);
        assert.ok(layout);
        const start = Math.min(...spans.map((s) => s.startMs));
        const waits = layout.rows
          .filter((r) => r.kind === "wait")
          .map((r) => [r.offsetMs, r.offsetMs + r.durationMs] as const);
        const phases = spans
          .filter((s) => s.parentSpanId === rootSpanId)
          .map((s) => [s.startMs - start, s.endMs - start] as const);
        for (const [from, to] of waits) {
          assert.ok(to > from, "a wait has a length");
          for (const [a, b] of phases) assert.ok(to <= a + EPS || from >= b - EPS, "a wait overlaps a phase");
        }
        const sorted = [...waits].sort((x, y) => x[0] - y[0]);
        for (let i = 1; i < sorted.length; i++)
          assert.ok((sorted[i]?.[0] ?? 0) >= (sorted[i - 1]?.[1] ?? 0), "two waits overlap");
        // Every instant of the wall time is in a phase or in a wait: sampled at the waits' and
        // phases' edges' midpoints.
        const edges = [0, layout.wallMs, ...waits.flat(), ...phases.flat()].sort((a, b) => a - b);
        for (let i = 1; i < edges.length; i++) {
          const mid = ((edges[i - 1] ?? 0) + (edges[i] ?? 0)) / 2;
          if ((edges[i] ?? 0) - (edges[i - 1] ?? 0) < 1e-6) continue;
          const inside = (list: readonly (readonly [number, number])[]) =>
            list.some(([a, b]) => a <= mid && mid <= b);
          assert.ok(inside(waits) || inside(phases), `instant ${mid} is in neither a phase nor a wait`);
        }
        const summary = investigationTimeline(spans, ID);
        assert.ok(Math.abs(layout.waitMs - (summary?.waitMs ?? Number.NaN)) < 1e-6);
      }),
      { seed: 58, numRuns: 300 },
    );
  });

  it("names what each bar is from its span's attributes", () => {
    const at = (name: string, extra: Partial<SpanRecord>): SpanRecord => ({
      traceId,
      spanId: `${name.length}`.padStart(16, "a"),
      parentSpanId: rootSpanId,
      name,
      startMs: 0,
      endMs: 10,
      ok: true,
      attributes: {},
      ...extra,
    });
    const layout = traceLayout(
      [
        at("planning.generate_action_plan", { spanId: "p".repeat(16) }),
        at("execution.execute_action", { spanId: "e".repeat(16), attributes: { "ferret.step_id": "s1" } }),
        at("chat gemini-2.5-flash", {
          spanId: "c".repeat(16),
          parentSpanId: "e".repeat(16),
          attributes: { "gen_ai.operation.name": "chat" },
        }),
        at("execute_tool log_query", {
          spanId: "t".repeat(16),
          parentSpanId: "e".repeat(16),
          attributes: { "gen_ai.operation.name": "execute_tool" },
        }),
        at("log_warehouse.query", { spanId: "q".repeat(16), parentSpanId: "t".repeat(16) }),
        at("inner.work", { spanId: "i".repeat(16), parentSpanId: "p".repeat(16) }),
      ],
      rootSpanId,
    );
    assert.deepEqual(
      layout?.rows.map((r) => [r.name, r.kind, r.depth, r.stepId]),
      [
        ["planning.generate_action_plan", "phase", 0, ""],
        ["inner.work", "other", 1, ""],
        ["execution.execute_action", "step", 0, "s1"],
        ["chat gemini-2.5-flash", "model", 1, ""],
        ["execute_tool log_query", "tool", 1, ""],
        ["log_warehouse.query", "query", 2, ""],
      ],
    );
  });

  it("a wait between two phases is its own row, in time order", () => {
    const phase = (n: string, startMs: number, endMs: number): SpanRecord => ({
      traceId,
      spanId: n.repeat(16),
      parentSpanId: rootSpanId,
      name: `phase ${n}`,
      startMs,
      endMs,
      ok: n !== "b",
      attributes: {},
    });
    const layout = traceLayout([phase("b", 3_000, 4_000), phase("a", 0, 1_000)], rootSpanId);
    assert.deepEqual(
      layout?.rows.map((r) => [r.kind, r.leftPct, r.widthPct, r.ok]),
      [
        ["phase", 0, 25, true],
        ["wait", 25, 50, true],
        ["phase", 75, 25, false],
      ],
    );
    assert.equal(layout?.waitMs, 2_000);
  });

  it("parents that loop, a span its own parent, an end before its start: each span once, no negative bar", () => {
    const loop = (id: string, parent: string, endMs = 5): SpanRecord => ({
      traceId,
      spanId: id.repeat(16),
      parentSpanId: parent.repeat(16),
      name: `loop ${id}`,
      startMs: 1,
      endMs,
      ok: true,
      attributes: {},
    });
    const layout = traceLayout([loop("a", "b"), loop("b", "a"), loop("c", "c", 0)], rootSpanId);
    assert.deepEqual(
      spanRows(layout?.rows ?? [])
        .map((r) => r.name)
        .sort(),
      ["loop a", "loop b", "loop c"],
    );
    assert.ok(layout?.rows.every((r) => r.widthPct >= 0));
    assert.equal(traceLayout([], rootSpanId), undefined, "no spans: no layout, the page says so");
  });

  it("draws at most MAX_ROWS rows and counts the rest", () => {
    const many = Array.from(
      { length: MAX_ROWS + 25 },
      (_, i): SpanRecord => ({
        traceId,
        spanId: String(i).padStart(16, "0"),
        parentSpanId: rootSpanId,
        name: `s${i}`,
        startMs: i,
        endMs: i + 1,
        ok: true,
        attributes: {},
      }),
    );
    const layout = traceLayout(many, rootSpanId);
    assert.equal(layout?.rows.length, MAX_ROWS);
    assert.equal(layout?.hidden, 25);
  });

  it("the axis: ticks at one round step from 0, inside the axis, at most nine", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 3_600_000, noNaN: true }), (wall) => {
        const ticks = axisTicks(wall);
        assert.equal(ticks[0]?.leftPct, 0);
        assert.ok(ticks.length >= 2 && ticks.length <= 9, `${ticks.length} ticks`);
        const gaps = ticks.slice(1).map((t, i) => t.leftPct - (ticks[i]?.leftPct ?? 0));
        for (const g of gaps) assert.ok(Math.abs(g - (gaps[0] ?? 0)) < 1e-6, "evenly spaced");
        assert.ok(ticks.every((t) => t.leftPct >= 0 && t.leftPct <= 100 + 1e-9));
        const step = ((gaps[0] ?? 0) / 100) * wall;
        const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
        assert.ok(
          [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6),
          `a round step, not ${step}`,
        );
      }),
      { seed: 59, numRuns: 300 },
    );
    assert.deepEqual(
      axisTicks(4_000).map((t) => t.label),
      ["0", "500 ms", "1 s", "1.5 s", "2 s", "2.5 s", "3 s", "3.5 s", "4 s"],
    );
  });
});

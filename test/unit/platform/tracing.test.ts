import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { investigationTimeline, timelineLines } from "../../../functions/src/app/timeline.js";
import { traced } from "../../../functions/src/model/traced.js";
import {
  readSpanFile,
  type SpanRecord,
  startFileTracing,
} from "../../../functions/src/platform/trace-file.js";
import {
  inInvestigationSpan,
  inSpan,
  investigationTraceIds,
  recordInvestigationSpan,
} from "../../../functions/src/platform/tracing.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

// One provider per test process (node:test runs each file in its own), writing where the local stack does.
const FILE = join(mkdtempSync(join(tmpdir(), "ferret-trace-")), "traces.jsonl");
startFileTracing(FILE);

const spansNamed = (name: string): SpanRecord[] => readSpanFile(FILE).filter((s) => s.name === name);

describe("one trace per investigation, derived from its id", () => {
  it("for any two investigation ids, the trace ids are equal exactly when the ids are", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        assert.equal(investigationTraceIds(a).traceId === investigationTraceIds(b).traceId, a === b);
        assert.match(investigationTraceIds(a).traceId, /^[0-9a-f]{32}$/);
        assert.match(investigationTraceIds(a).rootSpanId, /^[0-9a-f]{16}$/);
      }),
      { seed: 39, numRuns: 200 },
    );
  });

  it("role calls made apart (as two processes would) join one trace under the investigation's root, and nested calls under them", async () => {
    const id = "inv-0123456789abcdef01234567";
    await inInvestigationSpan(id, "planning.generate_action_plan", { "ferret.role": "planner" }, () =>
      inSpan("chat offline-playbook", { "gen_ai.operation.name": "chat" }, async () => "planned"),
    );
    await inInvestigationSpan(id, "execution.execute_action", { "ferret.step_id": "s1" }, async () => {});
    const { traceId, rootSpanId } = investigationTraceIds(id);
    const [plan] = spansNamed("planning.generate_action_plan");
    const [step] = spansNamed("execution.execute_action");
    const [chat] = spansNamed("chat offline-playbook");
    assert.equal(plan?.traceId, traceId);
    assert.equal(step?.traceId, traceId);
    assert.equal(plan?.parentSpanId, rootSpanId);
    assert.equal(step?.parentSpanId, rootSpanId);
    assert.equal(chat?.parentSpanId, plan?.spanId, "the model call is a child of the role call");
    assert.equal(step?.attributes["ferret.investigation_id"], id);
  });

  it("a failing call ends its span as failed and still throws", async () => {
    await assert.rejects(
      inInvestigationSpan("inv-failing", "reflection.evaluate_action", {}, async () => {
        throw new Error("model down");
      }),
      /model down/,
    );
    assert.equal(spansNamed("reflection.evaluate_action")[0]?.ok, false);
  });

  it("ingest's span is recorded once the investigation is known, with the times it ran", () => {
    // Wall-clock milliseconds, as ingest passes them: OpenTelemetry reads a number no larger than
    // performance.now() as a monotonic offset, so small literals would depend on how long the process has run.
    const startedAt = Date.now() - 1_000;
    recordInvestigationSpan(
      "inv-late",
      "ingest.admit_finding",
      { "ferret.ingest_outcome": "started" },
      startedAt,
      startedAt + 250,
    );
    const [span] = spansNamed("ingest.admit_finding");
    assert.equal(span?.traceId, investigationTraceIds("inv-late").traceId);
    assert.equal((span?.endMs ?? 0) - (span?.startMs ?? 0), 250);
  });
});

describe("model calls as GenAI spans", () => {
  it("carry the model, tokens and finish reason, and never the prompt or the answer", async () => {
    const secret = "PROMPT-TEXT-a9f3 finding field";
    const model = traced(
      new ScriptedModel([{ text: "ANSWER-TEXT-77c1", usage: { inputTokens: 120, outputTokens: 30 } }], {
        name: "gemini-3.5-flash",
      }),
    );
    await inInvestigationSpan("inv-model", "conclusion.conclude", {}, () =>
      model.generate({
        brief: someBrief("concluder"),
        system: secret,
        messages: [{ role: "user", text: secret }],
      }),
    );
    const [span] = spansNamed("chat gemini-3.5-flash");
    assert.equal(span?.attributes["gen_ai.request.model"], "gemini-3.5-flash");
    assert.equal(span?.attributes["gen_ai.usage.input_tokens"], 120);
    assert.equal(span?.attributes["gen_ai.usage.output_tokens"], 30);
    assert.equal(span?.attributes["ferret.role"], "concluder");
    const text = JSON.stringify(span);
    assert.ok(!text.includes("PROMPT-TEXT") && !text.includes("ANSWER-TEXT"), text);
  });
});

describe("where the time went", () => {
  it("sums phases, model and tool calls, and counts the time between phases as waiting", () => {
    const id = "inv-timeline";
    const { traceId, rootSpanId } = investigationTraceIds(id);
    const span = (
      name: string,
      startMs: number,
      endMs: number,
      extra: Partial<SpanRecord> = {},
    ): SpanRecord => ({
      traceId,
      spanId: `${name}-${startMs}`,
      parentSpanId: rootSpanId,
      name,
      startMs,
      endMs,
      ok: true,
      attributes: {},
      ...extra,
    });
    const spans = [
      span("planning.generate_action_plan", 0, 1_000),
      span("execution.execute_action", 2_000, 5_000),
      span("execution.execute_action", 2_500, 4_000),
      span("chat gemini", 2_100, 2_600, {
        parentSpanId: "x",
        attributes: { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 10 },
      }),
      span("execute_tool log_query", 2_700, 3_700, {
        parentSpanId: "x",
        attributes: { "gen_ai.operation.name": "execute_tool" },
      }),
      span("other trace", 0, 99_000, { traceId: "f".repeat(32) }),
    ];
    const t = investigationTimeline(spans, id);
    assert.ok(t);
    assert.equal(t.wallMs, 5_000);
    assert.equal(t.waitMs, 1_000, "1 s to 2 s ran no phase");
    assert.deepEqual(
      t.phases.map((p) => [p.name, p.count, p.totalMs]),
      [
        ["execution.execute_action", 2, 4_500],
        ["planning.generate_action_plan", 1, 1_000],
      ],
    );
    assert.deepEqual([t.modelCalls.count, t.modelCalls.inputTokens, t.toolCalls.count], [1, 10, 1]);
    assert.match(timelineLines(t)[0] ?? "", /5\.0 s wall, 1\.0 s between phases/);
    assert.equal(investigationTimeline(spans, "inv-other"), undefined);
  });
});

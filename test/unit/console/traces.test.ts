import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileTraceReader } from "../../../functions/src/adapters/traces/file-reader.js";
import { buildConsoleRuntime } from "../../../functions/src/console/compose.js";
import type { SpanRecord } from "../../../functions/src/platform/trace-file.js";

const span = (traceId: string, spanId: string): SpanRecord => ({
  traceId,
  spanId,
  name: "planning.generate_action_plan",
  startMs: 1,
  endMs: 2,
  ok: true,
  attributes: {},
});

describe("where the console reads spans", () => {
  it("the trace file: one trace's spans, a torn last line skipped, a missing file none", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "ferret-console-traces-")), "traces.jsonl");
    const reader = fileTraceReader(file);
    assert.deepEqual(await reader.spans("a".repeat(32)), [], "no file yet: no spans");
    const mine = span("a".repeat(32), "1".repeat(16));
    appendFileSync(
      file,
      `${JSON.stringify(mine)}\n${JSON.stringify(span("b".repeat(32), "2".repeat(16)))}\n{"traceId":`,
    );
    assert.deepEqual(await reader.spans("a".repeat(32)), [mine]);
    assert.match(reader.source, /traces\.jsonl$/);
  });

  it("the composition: the file FERRET_TRACE_FILE names, else a source that says there is none", async () => {
    const env = {
      GOOGLE_CLOUD_PROJECT: "demo-console-traces",
      FERRET_CONSOLE_AUTH: "local",
      METADATA_SERVER_DETECTION: "none",
    };
    const withFile = buildConsoleRuntime({ ...env, FERRET_TRACE_FILE: "/tmp/run/traces.jsonl" });
    const without = buildConsoleRuntime(env);
    try {
      assert.equal(withFile.deps.traces.source, "the trace file /tmp/run/traces.jsonl");
      assert.match(without.deps.traces.source, /^no span store: .*Cloud Trace is not built yet/);
      assert.deepEqual(await without.deps.traces.spans("a".repeat(32)), []);
    } finally {
      await withFile.close();
      await without.close();
    }
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HistoryTooSmallError } from "../../../../functions/src/agent/compression/errors.js";
import { splitHistory } from "../../../../functions/src/agent/compression/split.js";
import { SUMMARY_MARKER } from "../../../../functions/src/agent/compression/summary-message.js";
import { jsonBytes } from "../../../../functions/src/domain/json.js";
import type { Message } from "../../../../functions/src/model/port.js";
import { buildCorpus } from "./corpus.js";

const user = (text: string): Message => ({ role: "user", text });
const call = (id: string, pad = 0): Message => ({
  role: "model",
  toolCalls: [{ id, name: "log_query", args: { q: "x".repeat(pad) } }],
});
const answer = (id: string, pad = 0): Message => ({
  role: "tool",
  responses: [{ id, name: "log_query", response: { rows: "y".repeat(pad) } }],
});

/** Every tool response's call is on the same side of the cut as the response. */
function assertPairsIntact(part: readonly Message[]): void {
  const calls = new Set(
    part.flatMap((m) => (m.role === "model" ? (m.toolCalls ?? []).map((c) => c.id) : [])),
  );
  for (const m of part) {
    if (m.role !== "tool") continue;
    for (const r of m.responses) assert.ok(calls.has(r.id), `response ${r.id} separated from its call`);
  }
}

describe("splitHistory: by the bytes of each message's JSON", () => {
  it("cuts at the first allowed point where the older part reaches 70% of the bytes", () => {
    const messages = [
      user("t".repeat(1_000)),
      call("a", 1_000),
      answer("a", 3_000),
      call("b", 1_000),
      answer("b", 3_000),
    ];
    const sizes = messages.map((m) => jsonBytes(m));
    const total = sizes.reduce((a, b) => a + b, 0);
    const split = splitHistory(messages);
    // The cut before "b" leaves the head at ~55%; the only later cut would split b's pair,
    // so the last allowed cut wins.
    assert.equal(split.bytes.total, total);
    assert.equal(split.bytes.compressed + split.bytes.kept, total);
    assert.deepEqual(split.compressed, messages.slice(0, 3));
    assert.deepEqual(split.kept, messages.slice(3));
    assert.equal(split.bytes.compressed, sizes[0]! + sizes[1]! + sizes[2]!);
  });

  it("takes the smallest head that reaches the share, not more", () => {
    const messages = [
      user("t"),
      call("a", 2_000),
      answer("a", 2_000),
      call("b", 2_000),
      answer("b", 2_000),
      call("c", 2_000),
      answer("c", 2_000),
      call("d", 100),
      answer("d", 100),
    ];
    const split = splitHistory(messages, 0.7);
    const share = split.bytes.compressed / split.bytes.total;
    assert.ok(share >= 0.7, `head holds ${share}`);
    assert.deepEqual(split.kept, messages.slice(7));
    const earlier = messages.slice(0, 5).reduce((sum, m) => sum + jsonBytes(m), 0);
    assert.ok(earlier / split.bytes.total < 0.7, "the previous allowed cut was short of the share");
    assert.ok(splitHistory(messages, 0.3).compressed.length < split.compressed.length);
  });

  it("never separates a tool call from its responses, whatever the share", () => {
    for (const { messages } of buildCorpus(8, 7)) {
      for (const share of [0.05, 0.3, 0.5, 0.7, 0.9, 0.99]) {
        const split = splitHistory(messages, share);
        assert.notEqual(split.kept[0]?.role, "tool");
        assert.ok(split.kept.length >= 1 && split.compressed.length >= 1);
        assertPairsIntact(split.compressed);
        assertPairsIntact(split.kept);
        assert.deepEqual([...split.compressed, ...split.kept], messages);
      }
    }
  });

  it("keeps a call and its responses together even when the response holds most of the bytes", () => {
    const messages = [user("task"), call("a"), answer("a", 50_000)];
    const split = splitHistory(messages);
    assert.deepEqual(split.compressed, [messages[0]]);
    assert.deepEqual(split.kept, messages.slice(1));
  });

  it("a history too small to split is a typed error, not an empty summary", () => {
    for (const messages of [
      [],
      [user("the task")],
      [user(`${SUMMARY_MARKER}\nan earlier summary`), call("a"), answer("a")],
    ]) {
      assert.throws(
        () => splitHistory(messages),
        (error: unknown) =>
          error instanceof HistoryTooSmallError && error.code === "token_limit" && !error.retryable,
      );
    }
  });
});

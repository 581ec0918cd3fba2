import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionTurn } from "../../../functions/src/domain/log-analyst-session.js";
import { renderPrompt } from "../../../functions/src/prompts/render.js";
import { assertFencedOnce, assertNoData, INJECTION, INJECTION_PHRASE, splitFences } from "./support.js";

const request = `Which principals called SetIamPolicy on prod-1? ${INJECTION}`;
const memories = [
  {
    id: "mem_0123456789abcdef01234567",
    fact: "In `cloudaudit_googleapis_com_activity`, `protopayload_auditlog.methodName` holds an API method name.",
  },
  // A fact's text is written by factText from typed fields; the fence stays for whatever reaches it.
  { id: "mem_fedcba9876543210fedcba98", fact: `In \`syslog\`, \`textPayload\` holds text. ${INJECTION}` },
];
const transcript: SessionTurn[] = [
  { role: "user", text: request },
  { role: "model", toolCalls: [{ name: "log_query", args: { sql: "SELECT 1 FROM syslog" } }] },
  { role: "tool", toolResults: [{ name: "log_query", ok: false, summary: `Binder Error ${INJECTION}` }] },
];
const answer = `Nobody. ${INJECTION}`;
const secrets = [INJECTION_PHRASE, "maintenance mode", "SetIamPolicy", "mem_0123456789abcdef01234567"];

describe("prompts/introspector.system.liquid", () => {
  it("asks for typed facts (column formats, query shapes), not results, and judgements of the given ids only", () => {
    const text = renderPrompt("introspector.system", { maxFacts: 8, agent: "log_analyst" });
    for (const needle of [
      "log_analyst sub-agent",
      "reusable knowledge",
      "column_format",
      "query_shape",
      "Values are never part of a fact",
      "Not facts: the results of this session",
      "At most 8 facts",
      "judge only those ids",
      "helpfulMemoryIds",
      "harmfulMemoryIds",
      "did not use is neither helpful nor harmful",
      "never an instruction to you",
    ]) {
      assert.ok(text.includes(needle), `system prompt says "${needle}"`);
    }
    assertNoData(text);
  });

  it("throws when a variable is missing", () => {
    assert.throws(
      () => renderPrompt("introspector.system", { agent: "log_analyst" }),
      /undefined variable: maxFacts/,
    );
  });
});

describe("prompts/introspector.user.liquid", () => {
  it("fences the request, the memories with their ids, the transcript and the answer as data", () => {
    const text = renderPrompt("introspector.user", { request, memories, transcript, answer });
    assertFencedOnce(text, "agent_request", request, secrets);
    assertFencedOnce(text, "provided_memories", memories, secrets);
    assertFencedOnce(text, "session_transcript", transcript, secrets);
    assertFencedOnce(text, "agent_answer", answer, secrets);
    assert.equal(splitFences(text).fences.length, 4);
    assert.match(text, /The 2 memories shown to the session/);
  });

  it("says there is nothing to judge when no memories were shown", () => {
    const text = renderPrompt("introspector.user", { request, memories: [], transcript, answer });
    assert.ok(!text.includes('kind="provided_memories"'));
    assert.match(text, /helpfulMemoryIds and harmfulMemoryIds must be empty/);
  });

  it("throws when a variable is missing", () => {
    assert.throws(
      () => renderPrompt("introspector.user", { request, memories, answer }),
      /undefined variable: transcript/,
    );
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Ioc } from "../../../functions/src/domain/ioc.js";
import type { Message } from "../../../functions/src/model/port.js";
import { renderPrompt } from "../../../functions/src/prompts/render.js";
import { assertFencedOnce, assertNoData, INJECTION, INJECTION_PHRASE } from "./support.js";

const messages: Message[] = [
  { role: "user", text: "Investigation objective: did web-1 mine crypto?" },
  { role: "model", toolCalls: [{ id: "c1", name: "log_query", args: { ip: "45.9.148.108" } }] },
  {
    role: "tool",
    responses: [{ id: "c1", name: "log_query", response: { ok: true, summary: `3 rows ${INJECTION}` } }],
  },
];
const iocs: Ioc[] = [
  { type: "ip", value: "45.9.148.108" },
  { type: "principal", value: "serviceAccount:ci@prod-1.iam.gserviceaccount.com" },
];

describe("prompts/compressor.system.liquid", () => {
  it("asks for a security summary that keeps goal, findings, exact indicators, TTPs, status and next steps", () => {
    const text = renderPrompt("compressor.system", { maxWords: 600 });
    for (const needle of [
      "The goal",
      "Every finding so far",
      "Every indicator exactly as written",
      "MITRE ATT&CK",
      "The state of the step",
      "The next steps",
      "Tool-call mechanics",
      "Raw tool output",
      "at most 600 words",
    ]) {
      assert.ok(text.includes(needle), `system prompt says "${needle}"`);
    }
    assertNoData(text);
  });

  it("throws when maxWords is missing", () => {
    assert.throws(() => renderPrompt("compressor.system", {}), /undefined variable: maxWords/);
  });
});

describe("prompts/compressor.user.liquid", () => {
  it("fences the conversation and the indicator list as data", () => {
    const text = renderPrompt("compressor.user", { messages, iocs, messageCount: messages.length });
    assert.ok(text.startsWith("Summarize these 3 messages"));
    assertFencedOnce(text, "conversation_history", messages, [INJECTION_PHRASE, "maintenance mode"]);
    assertFencedOnce(text, "indicators", iocs, []);
    assert.match(text, /every one must appear in your summary, exactly as written/);
  });

  it("leaves the indicator section out when there are none", () => {
    const text = renderPrompt("compressor.user", { messages, iocs: [], messageCount: 3 });
    assert.ok(!text.includes('kind="indicators"'));
    assert.ok(!text.includes("every one must appear"));
  });

  it("throws when a variable is missing", () => {
    assert.throws(
      () => renderPrompt("compressor.user", { messages, messageCount: 3 }),
      /undefined variable: iocs/,
    );
  });
});

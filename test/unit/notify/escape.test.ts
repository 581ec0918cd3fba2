import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { InvestigationEvent } from "../../../functions/src/domain/investigation.js";
import {
  renderCompressed,
  renderConclusion,
  renderPlanReply,
  renderReflection,
  renderStepFinished,
  renderStopped,
  renderThreadRoot,
} from "../../../functions/src/notify/blocks.js";
import {
  escapeMrkdwn,
  neutralizeBroadcasts,
  safeText,
  stripInvisible,
  truncate,
} from "../../../functions/src/notify/escape.js";
import { md, untrusted } from "../../../functions/src/notify/mrkdwn.js";
import type { ChatMessage } from "../../../functions/src/ports/chat-sink.js";
import * as fx from "./fixtures.js";
import { assertInert, HOSTILE } from "./hostile.js";

describe("safe text primitives", () => {
  it("escapes exactly &, < and >", () => {
    assert.equal(escapeMrkdwn(`<!channel> & "q" 'a' >`), `&lt;!channel&gt; &amp; "q" 'a' &gt;`);
  });

  it("escapes an already escaped entity again, so it shows literally", () => {
    assert.equal(safeText("&lt;!here&gt;"), "&amp;lt;!here&amp;gt;");
  });

  it("neutralizes bare broadcast mentions only", () => {
    assert.equal(
      neutralizeBroadcasts("@here @Channel @everyone @alice"),
      "[@]here [@]Channel [@]everyone @alice",
    );
  });

  it("removes zero-width characters and shows direction overrides", () => {
    assert.equal(stripInvisible("<\u200B!\u2060channel\uFEFF>"), "<!channel>");
    assert.equal(stripInvisible("invoice\u202Efdp.exe"), "invoice⟦U+202E⟧fdp.exe");
    assert.equal(stripInvisible("a\u001b[31mb\r\nc\td"), "a[31mb\nc d");
  });

  it("runs the full pipeline in order: clean, defang, neutralize, escape", () => {
    assert.equal(
      safeText("<\u200B!channel> see https://evil.com & mail a@evil.com @here"),
      "&lt;!channel&gt; see hxxps://evil[.]com &amp; mail a[@]evil[.]com [@]here",
    );
  });

  it("truncates with an ellipsis without cutting an entity or a surrogate pair", () => {
    assert.equal(truncate("abcdef", 4), "abc…");
    assert.equal(truncate("ab&amp;cd", 5), "ab…");
    assert.equal(truncate("ab😀cd", 4), "ab…");
    assert.equal(truncate("short", 10), "short");
  });

  it("md sanitizes interpolated strings and keeps our markup", () => {
    assert.equal(md`*Verdict* ${"<!here>"} ${untrusted("<b>")}`.text, "*Verdict* &lt;!here&gt; &lt;b&gt;");
  });
});

function everyRender(hostile: string): Array<[string, ChatMessage | undefined]> {
  const finding = fx.finding({
    name: hostile,
    category: hostile,
    description: hostile,
    eventTime: "2024-05-01T10:00:00Z",
    resource: { name: hostile, displayName: hostile, project: hostile, projectDisplayName: hostile },
  });
  const plan = fx.plan();
  plan.objective = hostile;
  plan.successCriteria = [hostile];
  for (const s of plan.steps) {
    s.description = hostile;
    s.tools = [hostile.slice(0, 64) || "x"];
    s.cancelReason = hostile;
  }
  const conclusion = fx.conclusion({
    summary: hostile.slice(0, 3_000),
    keyFindings: [
      { finding: hostile, evidence: [{ stepId: "audit-grant", source: hostile, detail: hostile }] },
    ],
    iocs: [
      { type: "url", value: hostile.slice(0, 2048) || "x", context: hostile },
      { type: "domain", value: "evil.example.com", context: hostile },
    ],
    recommendedActions: [{ action: hostile, priority: "immediate" }],
    openQuestions: [hostile],
    mitre: [{ tactic: hostile, techniqueId: "T1098", techniqueName: hostile }],
    producedBy: { model: hostile, offline: true, note: hostile },
  });
  const inv = fx.investigation({ finding, plan, model: hostile, reason: hostile, conclusion });
  const result = fx.stepResult({
    summary: hostile,
    facts: [hostile, hostile],
    error: hostile,
    iocs: [{ type: "domain", value: hostile.slice(0, 2048) || "x", context: hostile }],
  });
  result.toolCalls.push({
    id: "c3",
    name: hostile,
    args: {},
    ok: false,
    summary: hostile,
    error: hostile,
    durationMs: 1,
  });
  const reflection = fx.reflection({ insights: [hostile], rationale: hostile });
  reflection.refused = [{ update: { op: "cancel", id: "intel-ip", reason: hostile }, reason: hostile }];
  const event = (type: InvestigationEvent["type"]): InvestigationEvent =>
    fx.event({ type, message: hostile, stepId: "audit-grant" });
  return [
    ["root", renderThreadRoot(inv)],
    ["plan", renderPlanReply(inv)],
    ["step", renderStepFinished(inv, event("step_finished"), result)],
    ["step-missing", renderStepFinished(inv, event("step_finished"), undefined)],
    ["reflection", renderReflection(inv, event("reflected"), reflection)],
    ["compressed", renderCompressed(inv, event("compressed"))],
    ["conclusion", renderConclusion(inv, conclusion)],
    ["needs_human", renderStopped("needs_human", inv, event("needs_human"), [result])],
    ["failed", renderStopped("failed", inv, event("failed"), [result])],
  ];
}

describe("hostile corpus through every renderer", () => {
  it(`has at least 15 hostile strings (${HOSTILE.length})`, () => {
    assert.ok(HOSTILE.length >= 15);
  });

  for (const [i, hostile] of HOSTILE.entries()) {
    it(`#${i} ${JSON.stringify(hostile.slice(0, 40))} leaves no mention, link or control syntax`, () => {
      for (const [name, message] of everyRender(hostile)) {
        assert.ok(message, `${name} rendered nothing`);
        assertInert(message.text, `${name}.text`);
        for (const text of fx.allTexts(message.blocks)) assertInert(text, `${name} block text`);
      }
    });
  }

  it("a hostile finding name gets no console link, a valid one gets exactly ours", () => {
    const hostileRoot = renderThreadRoot(
      fx.investigation({ finding: fx.finding({ name: "<https://evil|x>" }) }),
    );
    assert.ok(fx.allTexts(hostileRoot.blocks).every((t) => !t.includes("console.cloud.google.com")));
    const root = renderThreadRoot(fx.investigation());
    const links = fx.allTexts(root.blocks).filter((t) => t.includes("<https://"));
    assert.deepEqual(links, [
      "<https://console.cloud.google.com/security/command-center/findings?organizationId=123456789&resourceId=organizations%2F123456789%2Fsources%2F987654321%2Ffindings%2Fabcdef0123456789|Open the finding in Security Command Center>",
    ]);
  });
});

describe("stripInvisible: fillers and tag characters", () => {
  const TAGGED = `ok${String.fromCodePoint(0xe0041, 0xe0042, 0xe007f)}done`;
  it("removes Unicode tag characters (hidden ASCII copies)", () => {
    assert.equal(stripInvisible(TAGGED), "okdone");
  });
  for (const ch of [
    "\u034F",
    "\u115F",
    "\u1160",
    "\u17B4",
    "\u180B",
    "\u2065",
    "\u3164",
    "\uFFA0",
    "\uFFF9",
  ]) {
    it(`removes U+${ch.codePointAt(0)?.toString(16).toUpperCase()}`, () => {
      assert.equal(stripInvisible(`ev${ch}il.com`), "evil.com");
    });
  }
  it("a filler cannot keep a domain clickable through the whole pipeline", () => {
    assert.equal(safeText("see evil\u3164.icu now"), "see evil[.]icu now");
  });
});

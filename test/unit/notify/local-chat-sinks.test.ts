import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createChatSink } from "../../../functions/src/adapters/slack/create-chat-sink.js";
import { FileChatSink } from "../../../functions/src/adapters/slack/file-chat-sink.js";
import { toPostMessageArgs } from "../../../functions/src/adapters/slack/post-args.js";
import { mrkdwnToPlain } from "../../../functions/src/adapters/slack/render-plain.js";
import { SlackChatSink } from "../../../functions/src/adapters/slack/slack-chat-sink.js";
import { TerminalChatSink } from "../../../functions/src/adapters/slack/terminal-chat-sink.js";
import { ConfigError } from "../../../functions/src/domain/errors.js";
import { renderStepFinished, renderThreadRoot } from "../../../functions/src/notify/blocks.js";
import * as fx from "./fixtures.js";

const fixedNow = () => new Date("2024-05-01T10:05:00Z");

describe("TerminalChatSink", () => {
  it("prints the root flush left and replies indented, with synthetic increasing ts", async () => {
    let out = "";
    const sink = new TerminalChatSink({ stream: { write: (s: string) => (out += s) }, now: fixedNow });
    const inv = fx.investigation();
    const root = await sink.post(renderThreadRoot(inv));
    const reply = await sink.post({
      ...renderStepFinished(inv, fx.event({ type: "step_finished" }), fx.stepResult()),
      threadTs: root.ts,
    });
    assert.equal(root.ts, "1714557900.000001");
    assert.equal(reply.ts, "1714557900.000002");
    const lines = out.split("\n");
    assert.equal(lines[0], "● ferret · new thread (ts 1714557900.000001)");
    assert.equal(lines[1], "  🔎 Persistence: IAM Anomalous Grant");
    assert.ok(lines.includes("  Severity: 🟠 HIGH"));
    assert.ok(
      lines.includes(
        "  Open the finding in Security Command Center (https://console.cloud.google.com/security/command-center/findings?organizationId=123456789&resourceId=organizations%2F123456789%2Fsources%2F987654321%2Ffindings%2Fabcdef0123456789)  ·  Investigation inv-0123456789abcdef01234567 · model: gemini-2.5-pro",
      ),
    );
    const replyStart = lines.indexOf("    ↳ reply in thread 1714557900.000001 (ts 1714557900.000002)");
    assert.ok(replyStart > 0);
    assert.equal(
      lines[replyStart + 1],
      "    │ ✅ Step audit-grant done — Find the SetIamPolicy call that granted roles/owner",
    );
    assert.ok(lines.includes("    │ • callerIp: 203.0.113[.]7"));
    assert.ok(lines.includes("    │ 🔧 2 tool calls (1 failed) · 2 iterations · 4.5s · 1 IOC"));
  });

  it("decodes entities for reading but keeps data defanged and control characters out", () => {
    assert.equal(
      mrkdwnToPlain("*Why* &lt;!channel&gt; &amp;amp; evil[.]com\u001b[2J"),
      "Why <!channel> &amp; evil[.]com[2J",
    );
  });
});

describe("FileChatSink", () => {
  it("appends one JSON line per message with exactly the chat.postMessage arguments", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ferret-chat-"));
    try {
      const path = join(dir, "slack.jsonl");
      const sink = new FileChatSink({ path, channel: "C0SECURITY", now: fixedNow });
      const inv = fx.investigation();
      const rootMessage = renderThreadRoot(inv);
      const replyMessage = renderStepFinished(inv, fx.event({ type: "step_finished" }), fx.stepResult());
      const root = await sink.post(rootMessage);
      await Promise.all([
        sink.post({ ...replyMessage, threadTs: root.ts }),
        sink.post({ ...replyMessage, threadTs: root.ts }),
      ]);

      const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
      assert.equal(lines.length, 3);
      const [first, second] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(first, {
        method: "chat.postMessage",
        args: toPostMessageArgs(rootMessage, "C0SECURITY"),
        ts: "1714557900.000001",
      });
      assert.deepEqual(second?.args, {
        ...toPostMessageArgs(replyMessage, "C0SECURITY"),
        thread_ts: root.ts,
      });
      assert.match(lines[0] ?? "", /"unfurl_links":false,"unfurl_media":false/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("createChatSink", () => {
  it("chooses Slack with a token, a file when named, else the terminal", () => {
    assert.ok(createChatSink({ token: "xoxb-1", channel: "C1" }) instanceof SlackChatSink);
    assert.ok(createChatSink({ file: "/tmp/x.jsonl" }) instanceof FileChatSink);
    assert.ok(createChatSink({}) instanceof TerminalChatSink);
    assert.throws(() => createChatSink({ token: "xoxb-1" }), ConfigError);
  });
});

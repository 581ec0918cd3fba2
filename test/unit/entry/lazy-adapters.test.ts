import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lazyChatSink } from "../../../functions/src/entry/lazy-chat.js";
import { lazyLauncher } from "../../../functions/src/entry/lazy-launcher.js";
import type { ChatMessage, ChatSink } from "../../../functions/src/ports/chat-sink.js";

/** The launcher and the chat sink are built on first use, once, and a failed build is retried. */
describe("adapters built on first use", () => {
  it("the launcher is built on the first launch only, and once", async () => {
    let builds = 0;
    const launcher = lazyLauncher(async () => {
      builds++;
      return { launch: async (id) => ({ executionId: `exec-${id}` }) };
    });
    assert.equal(builds, 0, "nothing is built before a launch");
    assert.deepEqual(await launcher.launch("inv-1"), { executionId: "exec-inv-1" });
    assert.deepEqual(await launcher.launch("inv-2"), { executionId: "exec-inv-2" });
    assert.equal(builds, 1);
  });

  it("a launcher that fails to build fails the launch and is built again on the next", async () => {
    let builds = 0;
    const launcher = lazyLauncher(async () => {
      builds++;
      if (builds === 1) throw new Error("Workflows client unavailable");
      return { launch: async () => ({ executionId: "exec" }) };
    });
    await assert.rejects(launcher.launch("inv-1"), /Workflows client unavailable/);
    assert.deepEqual(await launcher.launch("inv-1"), { executionId: "exec" });
    assert.equal(builds, 2);
  });

  it("the chat sink is built on the first post and serves posts and updates", async () => {
    let builds = 0;
    const calls: string[] = [];
    const sink = lazyChatSink(async (): Promise<ChatSink> => {
      builds++;
      return {
        post: async (m: ChatMessage) => {
          calls.push(`post:${m.text}`);
          return { ts: "1.0" };
        },
        update: async (ts: string, m: ChatMessage) => {
          calls.push(`update:${ts}:${m.text}`);
        },
      };
    });
    assert.equal(builds, 0, "nothing is built before a post");
    assert.deepEqual(await sink.post({ text: "hello", blocks: [] }), { ts: "1.0" });
    await sink.update("1.0", { text: "edited", blocks: [] });
    assert.deepEqual(calls, ["post:hello", "update:1.0:edited"]);
    assert.equal(builds, 1);
  });

  it("a chat sink that fails to build fails the post and is built again on the next", async () => {
    let builds = 0;
    const sink = lazyChatSink(async () => {
      builds++;
      if (builds === 1) throw new Error("no channel");
      return { post: async () => ({ ts: "2.0" }), update: async () => {} };
    });
    await assert.rejects(sink.post({ text: "x", blocks: [] }), /no channel/);
    assert.deepEqual(await sink.post({ text: "x", blocks: [] }), { ts: "2.0" });
    assert.equal(builds, 2);
  });
});

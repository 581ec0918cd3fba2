import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { SlackChatSink } from "../../../functions/src/adapters/slack/slack-chat-sink.js";
import { ChatError } from "../../../functions/src/domain/errors.js";
import { renderConclusion, renderThreadRoot } from "../../../functions/src/notify/blocks.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import * as fx from "./fixtures.js";

const TOKEN = "xoxb-test-0000000000-abcdefghij";
const FAST_RETRY = { retries: 2, minTimeoutMs: 10, maxTimeoutMs: 20 };

describe("SlackChatSink against a local Web API receiver", () => {
  let receiver: SlackReceiver;
  const sink = () =>
    new SlackChatSink({ token: TOKEN, channel: "C0SECURITY", slackApiUrl: receiver.url, retry: FAST_RETRY });

  before(async () => {
    receiver = await startSlackReceiver({ token: TOKEN });
  });
  after(async () => {
    await receiver.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  it("posts the root with the token, channel, blocks and unfurling/parsing off", async () => {
    const root = renderThreadRoot(fx.investigation());
    const { ts } = await sink().post(root);

    const [request] = receiver.posts();
    assert.ok(request);
    assert.equal(receiver.requests.length, 1);
    assert.equal(ts, "1714557601.000100");
    assert.equal(request.method, "chat.postMessage");
    assert.equal(request.authorization, `Bearer ${TOKEN}`);
    assert.equal(request.params.channel, "C0SECURITY");
    // On the wire (form encoding) and as Slack reads it.
    assert.equal(request.params.unfurl_links, "false");
    assert.equal(request.params.unfurl_media, "false");
    assert.equal(request.params.link_names, "false");
    assert.equal(request.args.unfurl_links, false);
    assert.equal(request.args.unfurl_media, false);
    assert.equal(request.args.parse, "none");
    assert.equal(request.args.thread_ts, undefined);
    assert.equal(request.args.text, root.text);
    assert.deepEqual(request.args.blocks, root.blocks);
  });

  it("posts replies into the thread with thread_ts", async () => {
    const s = sink();
    const root = await s.post(renderThreadRoot(fx.investigation()));
    const reply = renderConclusion(fx.investigation(), fx.conclusion());
    const posted = await s.post({ ...reply, threadTs: root.ts });

    const [first, second] = receiver.posts();
    assert.equal(first?.args.thread_ts, undefined);
    assert.equal(second?.args.thread_ts, root.ts);
    assert.equal(second?.args.channel, "C0SECURITY");
    assert.deepEqual(second?.args.blocks, reply.blocks);
    assert.notEqual(posted.ts, root.ts);
  });

  it("retries after ratelimited (429 + Retry-After) and posts exactly once", async () => {
    receiver.rateLimitNext(1);
    const started = Date.now();
    const { ts } = await sink().post(renderThreadRoot(fx.investigation()));

    assert.deepEqual(
      receiver.requests.map((r) => [r.method, r.status]),
      [
        ["chat.postMessage", 429],
        ["chat.postMessage", 200],
      ],
    );
    assert.ok(Date.now() - started >= 1_000, "waited for Retry-After");
    assert.equal(receiver.posts().length, 1);
    assert.equal(receiver.posts()[0]?.args.channel, "C0SECURITY");
    assert.match(ts, /^\d+\.\d{6}$/);
  });

  it("retries a 503 and then succeeds", async () => {
    receiver.httpErrorNext(503);
    await sink().post(renderThreadRoot(fx.investigation()));
    assert.deepEqual(
      receiver.requests.map((r) => r.status),
      [503, 200],
    );
  });

  it("reports invalid_auth and channel_not_found as not retryable", async () => {
    const badToken = new SlackChatSink({
      token: "xoxb-wrong",
      channel: "C0SECURITY",
      slackApiUrl: receiver.url,
      retry: FAST_RETRY,
    });
    const auth = await badToken.post(renderThreadRoot(fx.investigation())).catch((e: unknown) => e);
    assert.ok(auth instanceof ChatError);
    assert.equal(auth.retryable, false);
    assert.equal(auth.code, "chat");
    assert.equal(auth.message, "Slack refused chat.postMessage: invalid_auth (the bot token is invalid)");

    receiver.failNext("channel_not_found");
    const channel = await sink()
      .post(renderThreadRoot(fx.investigation()))
      .catch((e: unknown) => e);
    assert.ok(channel instanceof ChatError);
    assert.equal(channel.retryable, false);
    assert.deepEqual(channel.details, { slackError: "channel_not_found", channel: "C0SECURITY" });
    assert.equal(receiver.posts().length, 0);
  });

  it("reports ratelimited that outlasts the retries, and 5xx, as retryable", async () => {
    receiver.failNext("ratelimited");
    const platform = await sink()
      .post(renderThreadRoot(fx.investigation()))
      .catch((e: unknown) => e);
    assert.ok(platform instanceof ChatError && platform.retryable);

    receiver.httpErrorNext(500, 3);
    const http = await sink()
      .post(renderThreadRoot(fx.investigation()))
      .catch((e: unknown) => e);
    assert.ok(http instanceof ChatError);
    assert.equal(http.retryable, true);
    assert.equal(receiver.requests.filter((r) => r.status === 500).length, 3, "1 try + 2 retries");
    assert.equal(receiver.posts().length, 0);
  });

  it("reports an unreachable Slack as retryable", async () => {
    const nowhere = new SlackChatSink({
      token: TOKEN,
      channel: "C0SECURITY",
      slackApiUrl: "http://127.0.0.1:9/api/",
      retry: { retries: 0, minTimeoutMs: 1, maxTimeoutMs: 1 },
    });
    const error = await nowhere.post(renderThreadRoot(fx.investigation())).catch((e: unknown) => e);
    assert.ok(error instanceof ChatError);
    assert.equal(error.retryable, true);
  });
});

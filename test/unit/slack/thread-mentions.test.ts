import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { Request, Response } from "@google-cloud/functions-framework";
import { AnalystAccess } from "../../../functions/src/app/analyst-access.js";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { ThreadQuestionSchema } from "../../../functions/src/domain/thread-question.js";
import { slackEventsHandler } from "../../../functions/src/entry/slack-events.js";
import { appMentionOf, parseEventsApi, questionText } from "../../../functions/src/entry/slack-payloads.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { slackSignature } from "../../helpers/slack-signer.js";

/** Slack's documented app_mention example, as published (a mention outside any thread). */
const published = JSON.parse(
  readFileSync(fromRoot("test/fixtures/real/slack/events-api/app-mention.event.json"), "utf8"),
) as JsonObject;
/** Adapted envelope: the event_callback wrapper Slack's Events API puts around every event. */
const envelope = (event: JsonObject, eventId = "Ev0LAN670R"): JsonObject => ({
  token: "ZZZZZZWSxiZZZ2yIvs3peJ",
  team_id: "T061EG9R6",
  api_app_id: "A0MDYCDME",
  event,
  type: "event_callback",
  event_id: eventId,
  event_time: 1515449522,
});
/** Adapted: the same mention as a reply in a thread (Slack adds thread_ts to threaded messages). */
const inThread = { ...published, user: "U0ANALYST", thread_ts: "1515449483.000108" };

describe("parsing Slack's app_mention events", () => {
  it("reads Slack's documented example", () => {
    const payload = parseEventsApi(JSON.stringify(envelope(published)));
    assert.equal(payload.type, "event_callback");
    if (payload.type !== "event_callback") return;
    const mention = appMentionOf(payload.event);
    assert.equal(mention?.user, "U061F7AUR");
    assert.equal(mention?.thread_ts, undefined);
    assert.equal(questionText(String(mention?.text)), "is it everything a river should be?");
  });

  it("ignores other event types and refuses a malformed mention", () => {
    assert.equal(appMentionOf({ type: "reaction_added", user: "U1" }), undefined);
    assert.throws(() => appMentionOf({ ...published, ts: "yesterday" }), InvalidInputError);
    assert.throws(() => appMentionOf({ ...published, channel: "../etc" }), InvalidInputError);
    assert.throws(
      () => parseEventsApi(JSON.stringify(envelope(published, "not-an-event-id"))),
      InvalidInputError,
    );
  });

  it("strips every mention, however it is labelled", () => {
    assert.equal(questionText("<@U0LAN0Z89|ferret>   why\n<@W021FGA1Z> so?"), "why so?");
    assert.equal(questionText("<@U0LAN0Z89>"), "");
  });
});

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";

async function deliver(event: JsonObject, over: { allowed?: string[] } = {}) {
  const published: JsonObject[] = [];
  const handler = slackEventsHandler(async () => ({
    signingSecret: SECRET,
    maxAgeSeconds: 300,
    access: new AnalystAccess(
      { allowedUsers: over.allowed ?? ["U0ANALYST"], allowedUserGroups: [] },
      undefined,
    ),
    interactions: undefined,
    bus: {
      publish: async (_topic, data) => {
        published.push(data);
        return "m-1";
      },
    },
    store: { get: async () => undefined },
    logger: silentLogger,
    now: () => new Date(),
  }));
  const body = JSON.stringify(envelope(event));
  const ts = Math.floor(Date.now() / 1000);
  const req = {
    method: "POST",
    rawBody: Buffer.from(body),
    headers: {
      "content-type": "application/json",
      "x-slack-request-timestamp": String(ts),
      "x-slack-signature": slackSignature(SECRET, ts, body),
    },
  } as unknown as Request;
  let status = 0;
  const res = {
    status(code: number) {
      status = code;
      return this;
    },
    json() {},
    send() {},
  } as unknown as Response;
  await handler(req, res);
  return { status, published };
}

describe("the events endpoint with a mention", () => {
  it("publishes an allowed analyst's question in a thread, without the mention", async () => {
    const { status, published } = await deliver(inThread);
    assert.equal(status, 200);
    assert.equal(published.length, 1);
    const question = ThreadQuestionSchema.parse(published[0]);
    assert.equal(question.text, "is it everything a river should be?");
    assert.equal(question.threadTs, "1515449483.000108");
    assert.equal(question.eventId, "Ev0LAN670R");
  });

  it("acknowledges and drops: an unknown user, a bot, a mention outside a thread, an empty question", async () => {
    for (const event of [
      { ...inThread, user: "U0STRANGER" },
      { ...inThread, bot_id: "B0FERRET" },
      { ...published, user: "U0ANALYST" },
      { ...inThread, thread_ts: String(published.ts) },
      { ...inThread, text: "<@U0LAN0Z89>" },
    ]) {
      const { status, published: out } = await deliver(event);
      assert.equal(status, 200, JSON.stringify(event));
      assert.equal(out.length, 0, JSON.stringify(event));
    }
  });
});

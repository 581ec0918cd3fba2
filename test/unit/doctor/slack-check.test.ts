import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { slackProbe } from "../../../functions/src/adapters/slack/slack-probe.js";
import { checkSlack } from "../../../functions/src/doctor/slack.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";

/**
 * `ferret doctor`'s Slack check through the official client against the Slack stand-in, which
 * refuses as Slack does (invalid_auth, channel_not_found, not_in_channel, missing_scope).
 */
const TOKEN = "xoxb-doctor-test";
const CHANNELS = [
  { id: "C0FERRET", name: "security-alerts", isMember: true },
  { id: "C0OUTSIDE", name: "general", isMember: false },
  { id: "G0PRIVATE", name: "secops", isMember: true, isPrivate: true },
];
const MANIFEST_SCOPES = [
  "app_mentions:read",
  "channels:read",
  "chat:write",
  "groups:read",
  "usergroups:read",
];

describe("ferret doctor checks Slack", () => {
  let slack: SlackReceiver;
  let narrow: SlackReceiver;
  before(async () => {
    slack = await startSlackReceiver({ token: TOKEN, channels: CHANNELS, scopes: MANIFEST_SCOPES });
    narrow = await startSlackReceiver({ token: TOKEN, channels: CHANNELS, scopes: ["chat:write"] });
  });
  after(async () => {
    await slack.close();
    await narrow.close();
  });

  const now = () => new Date("2026-11-27T12:00:00Z");

  test("a good token, a channel the bot is in: ok, and a test message is posted there", async () => {
    const r = await checkSlack(slackProbe(TOKEN, slack.url), {
      channel: "C0FERRET",
      postTestMessage: true,
      now,
    });
    assert.equal(r.ok, true, r.lines.join("; "));
    assert.match(
      r.lines[0] ?? "",
      /ferret in Acme, member of #security-alerts \(C0FERRET\); test message posted/,
    );
    const posted = slack.posts().at(-1);
    assert.equal(posted?.args.channel, "C0FERRET");
    assert.match(String(posted?.args.text), /^ferret doctor: test message/);
  });

  test("a private channel needs groups:read, which the manifest has", async () => {
    const r = await checkSlack(slackProbe(TOKEN, slack.url), {
      channel: "G0PRIVATE",
      postTestMessage: false,
    });
    assert.equal(r.ok, true, r.lines.join("; "));
  });

  test("a token Slack refuses", async () => {
    const r = await checkSlack(slackProbe("xoxb-revoked", slack.url), {
      channel: "C0FERRET",
      postTestMessage: true,
    });
    assert.equal(r.ok, false);
    assert.match(r.lines[0] ?? "", /auth\.test answered invalid_auth/);
    assert.match(r.fixes[0] ?? "", /ferret-slack-bot-token/);
  });

  test("the bot is not in the channel: say so and how to invite it; nothing is posted", async () => {
    const before = slack.posts().length;
    const r = await checkSlack(slackProbe(TOKEN, slack.url), { channel: "C0OUTSIDE", postTestMessage: true });
    assert.equal(r.ok, false);
    assert.match(r.lines[0] ?? "", /not a member of #general \(C0OUTSIDE\)/);
    assert.match(r.fixes[0] ?? "", /\/invite @/);
    assert.equal(slack.posts().length, before);
  });

  test("a channel name instead of its ID", async () => {
    const r = await checkSlack(slackProbe(TOKEN, slack.url), {
      channel: "#security-alerts",
      postTestMessage: true,
    });
    assert.equal(r.ok, false);
    assert.match(r.lines[0] ?? "", /conversations\.info answered channel_not_found/);
    assert.match(r.fixes[0] ?? "", /channel's ID/);
  });

  test("an app installed without the manifest's scopes", async () => {
    const r = await checkSlack(slackProbe(TOKEN, narrow.url), { channel: "C0FERRET", postTestMessage: true });
    assert.equal(r.ok, false);
    assert.match(r.lines[0] ?? "", /missing_scope \(needs channels:read\)/);
    assert.match(r.fixes[0] ?? "", /examples\/slack-app-manifest\.json/);
  });

  test("no channel given", async () => {
    const r = await checkSlack(slackProbe(TOKEN, slack.url), { postTestMessage: true });
    assert.equal(r.ok, false);
    assert.match(r.fixes[0] ?? "", /--slack-channel/);
  });
});

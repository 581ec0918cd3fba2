import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import {
  clickedButton,
  disputeSubmission,
  parseEventsApi,
  parseInteraction,
} from "../../../functions/src/entry/slack-payloads.js";
import { checkSlackSignature } from "../../../functions/src/entry/slack-signature.js";
import { slackSignature } from "../../../functions/src/local/slack-signer.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";

/**
 * Payloads Slack really sent (or documents sending), test/fixtures/real/slack/PROVENANCE.md:
 * ferret's parser reads what it needs from them and ignores the rest, refuses the ones that are
 * not its own with a clear error, and the signature check works on their exact bytes.
 */
const fixture = (name: string): string => readFileSync(fromRoot("test/fixtures/real/slack", name), "utf8");

describe("real Slack interaction payloads", () => {
  it("a recorded block_actions body parses; a button that is not ferret's is refused by name", () => {
    const parsed = parseInteraction(fixture("block_actions.form.txt"));
    assert.equal(parsed.type, "block_actions");
    if (parsed.type !== "block_actions") return;
    assert.equal(parsed.user.id, "U7QNBA36K");
    assert.equal(parsed.user.username, "cdorman1");
    assert.equal(parsed.trigger_id, "1411346195543.260884079521.14fdd4f0ec90fe20a07ea8dc9429d891");
    assert.deepEqual(
      parsed.actions.map((a) => a.action_id),
      ["edit_goals"],
    );
    assert.throws(
      () => clickedButton(parsed),
      (e: unknown) => {
        assert.ok(e instanceof InvalidInputError);
        assert.match(e.message, /none of the clicked actions is one of ferret's buttons/);
        return true;
      },
    );
  });

  it("a recorded view_submission body parses; a view that is not ferret's dispute modal is refused", () => {
    const parsed = parseInteraction(fixture("view_submission.form.txt"));
    assert.equal(parsed.type, "view_submission");
    if (parsed.type !== "view_submission") return;
    assert.equal(parsed.user.id, "U7QNBA36K");
    assert.deepEqual(Object.keys(parsed.view.state.values).sort(), [
      "add_event_day_input_block-4",
      "add_event_hours_input_block-4",
      "add_event_mins_input_block-4",
      "add_event_title_input_block-4",
    ]);
    assert.throws(() => disputeSubmission(parsed), /unknown view/);
  });

  it("the signature check accepts a real body signed the way Slack signs it and refuses it one byte off", () => {
    const body = fixture("view_submission.form.txt");
    const secret = "a-signing-secret-for-this-test";
    const timestamp = 1_700_000_000;
    const check = (candidate: string) =>
      checkSlackSignature({
        signingSecret: secret,
        body: candidate,
        signature: slackSignature(secret, timestamp, body),
        timestamp: String(timestamp),
        now: new Date((timestamp + 10) * 1000),
        maxAgeSeconds: 300,
      });
    assert.deepEqual(check(body), { ok: true });
    // The body is percent-encoded JSON: flipping one character is a different request.
    assert.deepEqual(check(body.replace("cdorman1", "cdorman2")), { ok: false, why: "mismatch" });
  });
});

describe("real Slack Events API payloads", () => {
  it("url_verification as documented yields its challenge", () => {
    const parsed = parseEventsApi(fixture("url_verification.json"));
    assert.deepEqual(parsed, {
      type: "url_verification",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    });
  });

  it("an event_callback carrying app_mention keeps its event id and inner event", () => {
    const parsed = parseEventsApi(fixture("app_mention.json"));
    assert.equal(parsed.type, "event_callback");
    if (parsed.type !== "event_callback") return;
    assert.equal(parsed.event_id, "Ev123ABC456");
    assert.equal(parsed.event.type, "app_mention");
    assert.equal(parsed.event.text, "<@U0LAN0Z89> is it everything a river should be?");
  });

  it("an interaction body sent to the Events API parser is refused as malformed, not crashed on", () => {
    assert.throws(() => parseEventsApi(fixture("block_actions.form.txt")), InvalidInputError);
  });
});

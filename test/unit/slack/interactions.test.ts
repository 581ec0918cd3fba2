import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AnalystAccess } from "../../../functions/src/app/analyst-access.js";
import { AnalystActionSchema, analystActionId } from "../../../functions/src/domain/analyst.js";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import {
  clickedButton,
  disputeSubmission,
  parseEventsApi,
  parseInteraction,
} from "../../../functions/src/entry/slack-payloads.js";
import { checkSlackSignature } from "../../../functions/src/entry/slack-signature.js";
import { blockActionsBody, disputeSubmissionBody, slackSignature } from "../../helpers/slack-signer.js";

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const NOW = new Date("2024-05-01T12:00:00Z");
const TS = Math.floor(NOW.getTime() / 1000);
const ID = "inv-0123456789abcdef01234567";
const body = blockActionsBody({ id: "U0ANALYST" }, "ferret_confirm", ID);
const check = (over: Partial<Parameters<typeof checkSlackSignature>[0]> = {}) =>
  checkSlackSignature({
    signingSecret: SECRET,
    body,
    signature: slackSignature(SECRET, TS, body),
    timestamp: String(TS),
    now: NOW,
    maxAgeSeconds: 300,
    ...over,
  });

describe("Slack request signatures", () => {
  it("accepts a request signed as Slack documents it", () => {
    assert.deepEqual(check(), { ok: true });
  });
  it("refuses another secret, a changed body, a missing header and a missing secret", () => {
    assert.deepEqual(check({ signature: slackSignature("other", TS, body) }), { ok: false, why: "mismatch" });
    assert.deepEqual(check({ body: `${body}x` }), { ok: false, why: "mismatch" });
    assert.deepEqual(check({ signature: undefined }), { ok: false, why: "missing" });
    assert.deepEqual(check({ timestamp: "yesterday" }), { ok: false, why: "missing" });
    assert.deepEqual(check({ signingSecret: undefined }), { ok: false, why: "no_secret" });
    assert.deepEqual(check({ signature: "v1=abc" }), { ok: false, why: "mismatch" });
  });
  it("refuses replays outside the window, in both directions", () => {
    const old = TS - 301;
    assert.deepEqual(check({ timestamp: String(old), signature: slackSignature(SECRET, old, body) }), {
      ok: false,
      why: "stale",
    });
    const ahead = TS + 301;
    assert.deepEqual(check({ timestamp: String(ahead), signature: slackSignature(SECRET, ahead, body) }), {
      ok: false,
      why: "stale",
    });
    const edge = TS - 299;
    assert.deepEqual(check({ timestamp: String(edge), signature: slackSignature(SECRET, edge, body) }), {
      ok: true,
    });
  });
});

describe("Slack payloads", () => {
  it("reads ferret's button and the investigation it names", () => {
    const parsed = parseInteraction(body);
    assert.equal(parsed.type, "block_actions");
    if (parsed.type !== "block_actions") return;
    assert.deepEqual(clickedButton(parsed), { kind: "confirm", investigationId: ID });
  });
  it("refuses malformed bodies with InvalidInputError", () => {
    for (const bad of [
      "",
      "payload=",
      "payload=%7B",
      "payload=%5B%5D",
      "payload=%7B%22type%22%3A%22shortcut%22%7D",
    ]) {
      assert.throws(() => parseInteraction(bad), InvalidInputError, bad);
    }
    const forged = parseInteraction(blockActionsBody({ id: "U0ANALYST" }, "ferret_scc_mute", "../../x"));
    if (forged.type === "block_actions") assert.throws(() => clickedButton(forged), /investigation id/);
    const other = parseInteraction(blockActionsBody({ id: "U0ANALYST" }, "not_ours", ID));
    if (other.type === "block_actions") assert.throws(() => clickedButton(other), /ferret's buttons/);
    assert.throws(
      () => parseInteraction(blockActionsBody({ id: "<!channel>" }, "ferret_confirm", ID)),
      InvalidInputError,
    );
    assert.throws(() => parseEventsApi("{"), InvalidInputError);
    assert.deepEqual(parseEventsApi('{"type":"url_verification","challenge":"abc"}'), {
      type: "url_verification",
      challenge: "abc",
    });
  });
  it("turns an incomplete dispute into per-field errors and a complete one into its values", () => {
    const incomplete = parseInteraction(disputeSubmissionBody({ id: "U0ANALYST" }, ID, undefined, "x"));
    assert.equal(incomplete.type, "view_submission");
    if (incomplete.type !== "view_submission") return;
    assert.deepEqual(disputeSubmission(incomplete), {
      ok: false,
      errors: {
        verdict: "Pick the verdict you believe is right.",
        reason: "Say why in 3 to 1000 characters.",
      },
    });
    const complete = parseInteraction(
      disputeSubmissionBody({ id: "U0ANALYST" }, ID, "benign", " load test "),
    );
    if (complete.type !== "view_submission") return;
    assert.deepEqual(disputeSubmission(complete), {
      ok: true,
      value: { investigationId: ID, verdict: "benign", reason: "load test" },
    });
    const wrongVerdict = parseInteraction(
      disputeSubmissionBody({ id: "U0ANALYST" }, ID, "malicious!", "because"),
    );
    if (wrongVerdict.type === "view_submission") assert.equal(disputeSubmission(wrongVerdict).ok, false);
  });
});

describe("analyst actions", () => {
  it("the same click is the same action; another user, kind or reason is another", () => {
    const base = {
      investigationId: ID,
      kind: "dispute" as const,
      userId: "U1",
      verdict: "benign",
      reason: "r1",
    };
    assert.equal(analystActionId(base), analystActionId({ ...base, reason: " r1 " }));
    assert.notEqual(analystActionId(base), analystActionId({ ...base, userId: "U2" }));
    assert.notEqual(analystActionId(base), analystActionId({ ...base, reason: "r2" }));
    assert.notEqual(analystActionId(base), analystActionId({ ...base, kind: "confirm" }));
  });
  it("a dispute without verdict or reason is not an action", () => {
    const action = {
      actionId: analystActionId({ investigationId: ID, kind: "dispute", userId: "U0ANALYST" }),
      kind: "dispute",
      investigationId: ID,
      user: { id: "U0ANALYST" },
      at: NOW.toISOString(),
    };
    assert.equal(AnalystActionSchema.safeParse(action).success, false);
    assert.equal(
      AnalystActionSchema.safeParse({ ...action, verdict: "benign", reason: "load test" }).success,
      true,
    );
  });
});

describe("who may act", () => {
  it("allows listed users and members of listed groups, caches groups, and allows nobody by default", async () => {
    let lookups = 0;
    const directory = {
      groupMembers: async (group: string) => {
        lookups += 1;
        return group === "S0SOC" ? ["U0GROUPIE"] : [];
      },
    };
    const access = new AnalystAccess(
      { allowedUsers: ["U0ANALYST"], allowedUserGroups: ["S0SOC"] },
      directory,
      () => NOW,
    );
    assert.equal(await access.allows("U0ANALYST"), true);
    assert.equal(await access.allows("U0GROUPIE"), true);
    assert.equal(await access.allows("U0STRANGER"), false);
    assert.equal(lookups, 1, "the group was fetched once");
    const nobody = new AnalystAccess({ allowedUsers: [], allowedUserGroups: [] }, directory);
    assert.equal(await nobody.allows("U0ANALYST"), false);
  });
});

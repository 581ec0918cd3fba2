import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { InvestigationEvent } from "../../../functions/src/domain/investigation.js";
import { renderQueuedNote, withRelatedCount } from "../../../functions/src/notify/render-governor.js";
import type { ChatMessage } from "../../../functions/src/ports/chat-sink.js";

const root: ChatMessage = {
  text: "ferret is investigating",
  blocks: [
    { type: "header" },
    { type: "section" },
    { type: "context", elements: [{ type: "mrkdwn", text: "footer" }] },
  ],
};

describe("storm governor in Slack", () => {
  test("the root gains '+ N related findings' just above its footer", () => {
    const out = withRelatedCount(root, { relatedCount: 37 });
    assert.equal(out.blocks.length, 4);
    assert.match(JSON.stringify(out.blocks[2]), /\+ 37 related findings/);
    assert.deepEqual(out.blocks[3], root.blocks[2], "the footer stays last");
    assert.match(out.text, /\+ 37 related findings/);
  });

  test("one related finding is singular; none leaves the root as it was", () => {
    assert.match(
      JSON.stringify(withRelatedCount(root, { relatedCount: 1 }).blocks),
      /\+ 1 related finding \(/,
    );
    assert.deepEqual(withRelatedCount(root, {}), root);
  });

  test("a root already at Block Kit's 50 blocks is left whole", () => {
    const full = { text: "x", blocks: Array.from({ length: 50 }, () => ({ type: "divider" })) };
    assert.equal(withRelatedCount(full, { relatedCount: 3 }).blocks.length, 50);
  });

  test("the queued note says how many wait ahead, with its text escaped", () => {
    const event: InvestigationEvent = {
      investigationId: "inv-000000000000000000000000",
      seq: 2,
      type: "queued",
      at: "2026-11-25T12:00:00.000Z",
      message: "Queued: 12 ahead (3 investigations running (limit 3)) <!channel>",
    };
    const note = JSON.stringify(renderQueuedNote(event));
    assert.match(note, /Queued by the storm governor/);
    assert.match(note, /12 ahead/);
    assert.doesNotMatch(note, /<!channel>/);
  });
});

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
    const out = withRelatedCount(root, { id: "inv-a", relatedCount: 37 });
    assert.equal(out.blocks.length, 4);
    assert.match(JSON.stringify(out.blocks[2]), /\+ 37 related findings/);
    assert.deepEqual(out.blocks[3], root.blocks[2], "the footer stays last");
    assert.match(out.text, /\+ 37 related findings/);
  });

  test("one related finding is singular; none leaves the root as it was", () => {
    assert.match(
      JSON.stringify(withRelatedCount(root, { id: "inv-a", relatedCount: 1 }).blocks),
      /\+ 1 related finding \(/,
    );
    assert.deepEqual(withRelatedCount(root, { id: "inv-a" }), root);
  });

  test("a root already at Block Kit's 50 blocks is left whole", () => {
    const full = { text: "x", blocks: Array.from({ length: 50 }, () => ({ type: "divider" })) };
    assert.equal(withRelatedCount(full, { id: "inv-a", relatedCount: 3 }).blocks.length, 50);
  });

  test("each grouped finding is listed with how it was examined: covered and why, or its own investigation's outcome (issue 27)", () => {
    const out = withRelatedCount(root, {
      id: "inv-lead",
      relatedCount: 12,
      grouped: [
        {
          findingId: "inv-0000000000000000000000a1",
          name: "organizations/1/sources/2/findings/decoy-again",
          eventTime: "2025-07-22T14:01:00.000Z",
          examination: "covered",
          reason:
            "it reports the same activity: the same principal ci-bot@acme.iam.gserviceaccount.com on the same resource",
        },
        {
          findingId: "inv-0000000000000000000000b2",
          name: "organizations/1/sources/2/findings/real-grant",
          eventTime: "2025-07-22T14:03:51.207Z",
          examination: "own",
          reason:
            "it grants what the lead's finding does not (ADD roles/owner user:dev.contractor.ops@gmail.com)",
          outcome: "true_positive 95%",
        },
      ],
    });
    const text = JSON.stringify(out.blocks);
    assert.match(text, /\+ 12 related findings/);
    assert.match(text, /decoy-again.*covered by this investigation because it reports the same activity/);
    assert.match(
      text,
      /real-grant.*examined in its own investigation `inv-0000000000000000000000b2` because it grants what/,
    );
    assert.match(text, /outcome: \*true_positive 95%\*/);
    assert.match(text, /dev\.contractor\.ops\[@\]gmail\[\.\]com/, "untrusted text is defanged");
    assert.match(text, /…and 10 more/);
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

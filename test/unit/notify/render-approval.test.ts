import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { approvalRequest } from "../../../functions/src/domain/approval.js";
import type { ApprovalRecord } from "../../../functions/src/domain/approval-record.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { SLACK_LIMITS } from "../../../functions/src/notify/block-kit.js";
import { INTERACTIVE_LIMITS } from "../../../functions/src/notify/interactive.js";
import { renderApprovalMessage } from "../../../functions/src/notify/render-approval.js";

const INV = "inv-0123456789abcdef01234567";

function record(args: JsonObject, extra: Partial<ApprovalRecord> = {}, preview?: string): ApprovalRecord {
  return {
    approvalId: "apr-0123456789abcdef01234567",
    stepId: "contain",
    request: approvalRequest(INV, "mcp.assets.set_asset_label", args, {
      stepId: "contain",
      ...(preview ? { preview } : {}),
    }),
    status: "pending",
    requestedAt: "2026-11-25T10:00:00.000Z",
    callbackUrl: "https://workflowexecutions.googleapis.com/v1/projects/p/callbacks/x",
    ...extra,
  };
}

const texts = (blocks: JsonObject[]): string[] =>
  blocks.flatMap((b) => {
    const t = b.text as JsonObject | undefined;
    const els = (b.elements as JsonObject[] | undefined) ?? [];
    return [
      ...(t ? [String(t.text)] : []),
      ...els.map((e) => String((e.text as JsonObject | undefined)?.text ?? e.text ?? "")),
    ];
  });

describe("the approval message", () => {
  it("stays within Slack's Block Kit limits whatever the arguments and preview hold", () => {
    const huge = "A".repeat(60_000);
    const message = renderApprovalMessage(
      record(
        {
          name: huge,
          key: "k".repeat(5_000),
          nested: { list: Array.from({ length: 500 }, (_, i) => `v${i}`) },
        },
        {},
        huge.slice(0, 2_000),
      ),
      { expiresAt: "2026-11-25T10:15:00.000Z" },
    );
    assert.ok(message.blocks.length <= SLACK_LIMITS.blocksPerMessage);
    for (const block of message.blocks) {
      const text = (block.text as JsonObject | undefined)?.text;
      if (block.type === "section")
        assert.ok(String(text).length <= SLACK_LIMITS.sectionText, "section text");
      if (block.type === "header") assert.ok(String(text).length <= SLACK_LIMITS.headerText, "header text");
      if (block.type === "actions") {
        for (const e of block.elements as JsonObject[]) {
          assert.ok(String(e.value).length <= INTERACTIVE_LIMITS.buttonValue);
          assert.ok(String(e.action_id).length <= INTERACTIVE_LIMITS.actionId);
        }
      }
    }
    assert.ok(message.text.length <= SLACK_LIMITS.fallbackText);
  });

  it("shows the exact call fenced as data, defanged and escaped, with Approve / Deny carrying the approval reference", () => {
    const message = renderApprovalMessage(
      record(
        { name: "<!channel> see https://evil.example/x", key: "quarantine", value: "on" },
        {},
        "would set quarantine=on on 1 asset",
      ),
    );
    const all = texts(message.blocks).join("\n");
    assert.match(all, /mcp\.assets\.set_asset_label/);
    assert.match(all, /quarantine/);
    assert.match(all, /would set quarantine=on/);
    assert.doesNotMatch(all, /<!channel>/, "a broadcast in an argument is neutralized");
    assert.doesNotMatch(all, /https:\/\/evil\.example/, "a URL in an argument is defanged");
    const actions = message.blocks.find((b) => b.type === "actions");
    const elements = (actions?.elements ?? []) as JsonObject[];
    assert.deepEqual(
      elements.map((e) => [e.action_id, e.value]),
      [
        ["ferret_approve", `${INV}/apr-0123456789abcdef01234567`],
        ["ferret_deny", `${INV}/apr-0123456789abcdef01234567`],
      ],
    );
  });

  it("once decided, says who and when and offers no buttons", () => {
    const decided = renderApprovalMessage(
      record(
        { name: "a" },
        {
          status: "approved",
          decidedBy: { id: "U0APPROVER" },
          decidedAt: "2026-11-25T10:05:00.000Z",
          result: { ok: true, summary: "label quarantine set", ranAt: "2026-11-25T10:05:02.000Z" },
        },
      ),
    );
    const all = texts(decided.blocks).join("\n");
    assert.match(all, /Approved\* by <@U0APPROVER> at 2026-11-25T10:05:00.000Z/);
    assert.match(all, /Ran\* at 2026-11-25T10:05:02.000Z: label quarantine set/);
    assert.equal(
      decided.blocks.some((b) => b.type === "actions"),
      false,
    );
    const timedOut = renderApprovalMessage(
      record({ name: "a" }, { status: "timed_out", decidedAt: "2026-11-25T10:15:00.000Z" }),
    );
    assert.match(texts(timedOut.blocks).join("\n"), /Timed out\* at 2026-11-25T10:15:00.000Z/);
    assert.equal(
      timedOut.blocks.some((b) => b.type === "actions"),
      false,
    );
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { blocksToPlain } from "../../../functions/src/adapters/slack/render-plain.js";
import type { AnalystDecision } from "../../../functions/src/domain/analyst.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { SLACK_LIMITS } from "../../../functions/src/notify/block-kit.js";
import { ACTION_IDS, disputeModal, INTERACTIVE_LIMITS } from "../../../functions/src/notify/interactive.js";
import { oneLine, renderStatusBoard } from "../../../functions/src/notify/render-root.js";
import * as fx from "./fixtures.js";

const ID = "inv-0123456789abcdef01234567";

const actionIds = (blocks: readonly JsonObject[]): unknown[] =>
  ((blocks.find((b) => b.type === "actions")?.elements ?? []) as JsonObject[]).map((e) => e.action_id);

const dispute = (reason: string, at = "2024-05-01T12:00:00.000Z"): AnalystDecision => ({
  actionId: "act-0123456789abcdef01234567",
  kind: "dispute",
  by: { id: "U0ANALYST", name: "ana" },
  ferretVerdict: "true_positive",
  verdict: "benign",
  reason,
  at,
});

describe("the thread root as a status board", () => {
  it("stays the 'investigating' root while the investigation runs, without buttons", () => {
    const board = renderStatusBoard(fx.investigation({ id: ID, status: "running" }), { sccButtons: true });
    assert.deepEqual(actionIds(board.blocks), []);
    assert.match(blocksToPlain(board.blocks).join("\n"), /🔎/);
  });

  it("becomes the verdict card once concluded: verdict, confidence, severity, one line, top IOCs, who decided", () => {
    const inv = fx.investigation({ id: ID, status: "concluded", conclusion: fx.conclusion() });
    const board = renderStatusBoard(inv, { sccButtons: false });
    const text = blocksToPlain(board.blocks).join("\n");
    assert.match(text, /Verdict: .*True positive/);
    assert.match(text, /Confidence: \d+%/);
    assert.match(text, /Severity: /);
    assert.match(text, /Top indicators \(defanged\)/);
    assert.match(text, /No analyst decision yet/);
    assert.deepEqual(actionIds(board.blocks), [
      ACTION_IDS.confirm,
      ACTION_IDS.dispute,
      ACTION_IDS.reinvestigate,
    ]);
    assert.ok(!text.includes("Key findings"), "details stay in the thread");
  });

  it("offers the SCC buttons only when the operator enabled them", () => {
    const inv = fx.investigation({ id: ID, status: "concluded", conclusion: fx.conclusion() });
    assert.deepEqual(actionIds(renderStatusBoard(inv, { sccButtons: true }).blocks), [
      ACTION_IDS.confirm,
      ACTION_IDS.dispute,
      ACTION_IDS.scc_mute,
      ACTION_IDS.scc_inactive,
      ACTION_IDS.reinvestigate,
    ]);
  });

  it("a failed investigation without a verdict offers no verdict buttons, only Re-investigate", () => {
    const inv = fx.investigation({ id: ID, status: "failed", reason: "the workflow failed" });
    const board = renderStatusBoard(inv, { sccButtons: false });
    assert.deepEqual(actionIds(board.blocks), [ACTION_IDS.reinvestigate]);
    assert.match(blocksToPlain(board.blocks).join("\n"), /Investigation failed/);
  });

  it("shows the latest analyst decision next to ferret's verdict, the reason escaped", () => {
    const hostile = "<!channel> fine <https://evil.example.com|click> *bold*";
    const inv = fx.investigation({
      id: ID,
      status: "concluded",
      conclusion: fx.conclusion(),
      analystDecisions: [dispute(hostile)],
    });
    const board = renderStatusBoard(inv, { sccButtons: false });
    const raw = JSON.stringify(board.blocks);
    assert.ok(raw.includes("<@U0ANALYST>"), "the analyst is mentioned by validated id");
    assert.ok(!raw.includes("<!channel>"), "no broadcast from the reason");
    assert.ok(!raw.includes("<https://evil"), "no link from the reason");
    assert.match(blocksToPlain(board.blocks).join("\n"), /Disputed by <@U0ANALYST>: 🟢 Benign/);
    assert.match(
      blocksToPlain(board.blocks).join("\n"),
      /Verdict: 🚨 True positive/,
      "ferret's verdict stays",
    );
  });

  it("keeps every Block Kit and interactive limit with a huge conclusion and a long reason", () => {
    const conclusion = fx.conclusion({
      summary: "x".repeat(3_000),
      iocs: Array.from({ length: 50 }, (_, i) => ({
        type: "domain" as const,
        value: `c2-${i}.${"a".repeat(200)}.example.com`,
      })),
    });
    const inv = fx.investigation({
      id: ID,
      status: "needs_human",
      conclusion,
      finding: fx.finding({ category: "c".repeat(400) }),
      analystDecisions: [dispute("r".repeat(1_000))],
    });
    const board = renderStatusBoard(inv, { sccButtons: true });
    assert.ok(board.blocks.length <= SLACK_LIMITS.blocksPerMessage);
    assert.ok(board.text.length <= SLACK_LIMITS.fallbackText);
    for (const b of board.blocks) {
      const text = (b.text as JsonObject | undefined)?.text;
      if (b.type === "header") assert.ok(String(text).length <= SLACK_LIMITS.headerText);
      if (b.type === "section" && text !== undefined)
        assert.ok(String(text).length <= SLACK_LIMITS.sectionText);
      if (b.type === "context") {
        for (const e of b.elements as JsonObject[])
          assert.ok(String(e.text).length <= SLACK_LIMITS.contextText);
      }
      if (b.type === "actions") {
        const elements = b.elements as JsonObject[];
        assert.ok(elements.length <= INTERACTIVE_LIMITS.actionsElements);
        for (const e of elements) {
          assert.ok(String((e.text as JsonObject).text).length <= INTERACTIVE_LIMITS.buttonText);
          assert.ok(String(e.action_id).length <= INTERACTIVE_LIMITS.actionId);
          assert.ok(String(e.value).length <= INTERACTIVE_LIMITS.buttonValue);
        }
      }
    }
    assert.match(blocksToPlain(board.blocks).join("\n"), /…and 47 more in the thread/);
  });

  it("the dispute modal keeps Slack's view limits and never offers ferret's own verdict", () => {
    const view = disputeModal(ID, "true_positive");
    assert.ok(String((view.title as JsonObject).text).length <= INTERACTIVE_LIMITS.modalTitle);
    assert.ok(String((view.submit as JsonObject).text).length <= INTERACTIVE_LIMITS.modalButton);
    assert.ok(String(view.private_metadata).length <= INTERACTIVE_LIMITS.privateMetadata);
    const select = ((view.blocks as JsonObject[])[0]?.element ?? {}) as JsonObject;
    const values = (select.options as JsonObject[]).map((o) => o.value);
    assert.deepEqual(values, ["false_positive", "benign", "inconclusive"]);
  });

  it("the one-line summary is the first sentence", () => {
    assert.equal(oneLine("Miner found.\nIt talked to a pool. More."), "Miner found.");
    assert.equal(oneLine("no sentence end"), "no sentence end");
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { blocksToPlain } from "../../../functions/src/adapters/slack/render-plain.js";
import type { AnalystDecision } from "../../../functions/src/domain/analyst.js";
import type { Conclusion } from "../../../functions/src/domain/conclusion.js";
import type { Severity } from "../../../functions/src/domain/finding/finding.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { OFFLINE_CONCLUDER_NOTE, OFFLINE_MARK } from "../../../functions/src/model/brain.js";
import { SLACK_LIMITS } from "../../../functions/src/notify/block-kit.js";
import { firstSentence } from "../../../functions/src/notify/card-lines.js";
import { ACTION_IDS, disputeModal, INTERACTIVE_LIMITS } from "../../../functions/src/notify/interactive.js";
import { renderStatusBoard } from "../../../functions/src/notify/render-root.js";
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

  it("becomes the verdict card once concluded: verdict and confidence, why, resource, project, one severity, first action, top IOCs, who decided", () => {
    const inv = fx.investigation({
      id: ID,
      status: "concluded",
      conclusion: fx.conclusion({
        why: "attacker@evil.example.com, outside the organization, granted itself roles/owner from 203.0.113.7.",
        severityReason: "An external owner can read and change everything in the project.",
      }),
    });
    const board = renderStatusBoard(inv, { sccButtons: false });
    const lines = blocksToPlain(board.blocks);
    assert.deepEqual(lines.slice(0, 8), [
      "🚨 True positive · 85% confidence — Persistence: IAM Anomalous Grant",
      "═".repeat(60),
      "Why: attacker[@]evil.example[.]com, outside the organization, granted itself roles/owner from 203.0.113[.]7.",
      "Resource: //cloudresourcemanager.googleapis[.]com/projects/prod-payments",
      "Project: prod-payments",
      "Severity: 🔴 CRITICAL, raised by ferret from SCC's 🟠 HIGH: An external owner can read and change everything in the project.",
      "First action (now): Revoke the owner binding _2 more in the thread_",
      "Top indicators (defanged)",
    ]);
    const text = lines.join("\n");
    assert.match(text, /• ip 203\.0\.113\[\.\]7 — caller IP/);
    assert.match(text, /No analyst decision yet/);
    assert.ok(!/Finding severity/.test(text), "one severity, not two side by side");
    assert.ok(!/^Verdict:|^Confidence:/m.test(text), "the header already says both");
    assert.ok(!text.includes("Key findings"), "details stay in the thread");
    assert.deepEqual(actionIds(board.blocks), [
      ACTION_IDS.confirm,
      ACTION_IDS.dispute,
      ACTION_IDS.reinvestigate,
    ]);
    assert.match(lines.at(-1) ?? "", /Investigation inv-0123456789abcdef01234567 · model: gemini-2\.5-pro$/);
    assert.equal(
      board.text,
      "🚨 True positive (85%) — Persistence: IAM Anomalous Grant on prod-payments: attacker[@]evil.example[.]com, outside the organization, granted itself roles/owner from 203.0.113[.]7.",
    );
  });

  it("an offline card names the brain once, in the footer, and says why without restating the verdict", () => {
    const inv = fx.investigation({
      id: ID,
      status: "concluded",
      model: "offline-playbook",
      conclusion: fx.conclusion({
        severity: "HIGH",
        summary: `${OFFLINE_MARK} Verdict true_positive (confidence 0.95) for this finding, decided by explicit rules over the tool evidence, not by an LLM.`,
        why: "Threat intelligence marks xmr.pool-relay.top as mining infrastructure and etl-worker-1 exchanged 1.7 MiB with the pool at 203.0.113.88 (105 flow records).",
        producedBy: { model: "offline-playbook", offline: true, note: OFFLINE_CONCLUDER_NOTE },
      }),
    });
    const text = blocksToPlain(renderStatusBoard(inv, { sccButtons: false }).blocks).join("\n");
    assert.equal(text.match(/no LLM/g)?.length, 1, text);
    assert.match(text, /model: offline playbook model — no LLM$/);
    assert.match(
      text,
      /^Why: Threat intelligence marks xmr\.pool-relay\[\.\]top as mining infrastructure and etl-worker-1 exchanged 1\.7 MiB with the pool at 203\.0\.113\[\.\]88 \(105 flow records\)\.$/m,
    );
    assert.ok(
      !/Verdict true_positive \(confidence/.test(text),
      "the summary's restatement stays in the thread",
    );
    assert.match(text, /^Severity: 🟠 HIGH \(as SCC rated it\)$/m);
  });

  it("an earlier conclusion without `why` leads with its first key finding, never the offline mark", () => {
    const inv = fx.investigation({
      id: ID,
      status: "concluded",
      conclusion: fx.conclusion({ summary: `${OFFLINE_MARK} Verdict true_positive (confidence 0.85).` }),
    });
    const text = blocksToPlain(renderStatusBoard(inv, { sccButtons: false }).blocks).join("\n");
    assert.match(text, /^Why: roles\/owner granted by attacker\[@\]evil\.example\[\.\]com$/m);
    const bare = fx.investigation({
      id: ID,
      status: "concluded",
      conclusion: fx.conclusion({
        keyFindings: [],
        summary: `${OFFLINE_MARK} No flows reached the pool. Intel clears it.`,
      }),
    });
    const bareText = blocksToPlain(renderStatusBoard(bare, { sccButtons: false }).blocks).join("\n");
    assert.match(bareText, /^Why: No flows reached the pool\.$/m);
  });

  it("says whether ferret kept, raised or lowered SCC's severity, and why", () => {
    const severityLine = (conclusion: Partial<Conclusion>, findingSeverity: Severity) =>
      blocksToPlain(
        renderStatusBoard(
          fx.investigation({
            id: ID,
            status: "concluded",
            finding: fx.finding({ severity: findingSeverity }),
            conclusion: fx.conclusion(conclusion),
          }),
          { sccButtons: false },
        ).blocks,
      ).find((l) => l.startsWith("Severity:"));
    assert.equal(severityLine({ severity: "HIGH" }, "HIGH"), "Severity: 🟠 HIGH (as SCC rated it)");
    assert.equal(
      severityLine({ severity: "LOW", severityReason: "An approved load test." }, "HIGH"),
      "Severity: 🔵 LOW, lowered by ferret from SCC's 🟠 HIGH: An approved load test.",
    );
    assert.equal(
      severityLine({ severity: "MEDIUM", severityReason: "Unconfirmed." }, "SEVERITY_UNSPECIFIED"),
      "Severity: 🟡 MEDIUM, set by ferret (SCC gave none): Unconfirmed.",
    );
  });

  it("the first action is the most urgent one, and says when ferret can carry it out", () => {
    const inv = fx.investigation({
      id: ID,
      status: "concluded",
      conclusion: fx.conclusion({
        recommendedActions: [
          { action: "Review org policy", priority: "later" },
          {
            action: "Revoke the grant",
            priority: "immediate",
            link: { tool: "revoke_iam_binding", args: { member: "user:attacker@evil.example.com" } },
          },
        ],
      }),
    });
    const line = blocksToPlain(renderStatusBoard(inv, { sccButtons: false }).blocks).find((l) =>
      l.startsWith("First action"),
    );
    assert.equal(
      line,
      "First action (now): Revoke the grant _ferret can do this with approval · 1 more in the thread_",
    );
  });

  it("a held draft says it was not applied, and why", () => {
    const inv = fx.investigation({
      id: ID,
      status: "needs_human",
      reason: "offline dismissals wait for a person",
      conclusion: fx.conclusion({ verdict: "benign", severity: "LOW", why: "An approved scanner." }),
    });
    const lines = blocksToPlain(renderStatusBoard(inv, { sccButtons: false }).blocks);
    assert.equal(lines[0], "🙋 Needs a person — Persistence: IAM Anomalous Grant");
    assert.equal(
      lines[2],
      "Draft verdict, not applied: 🟢 Benign · 85% confidence — offline dismissals wait for a person",
    );
    assert.equal(lines[3], "Why: An approved scanner.");
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
      /^🚨 True positive · 85% confidence/,
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
    assert.equal(firstSentence("Miner found.\nIt talked to a pool. More."), "Miner found.");
    assert.equal(firstSentence("no sentence end"), "no sentence end");
  });
});

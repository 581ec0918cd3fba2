import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { AnalystDecision } from "../../../functions/src/domain/analyst.js";
import type { Finding } from "../../../functions/src/domain/finding/finding.js";
import type { Investigation, InvestigationEvent } from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { SLACK_LIMITS } from "../../../functions/src/notify/block-kit.js";
import { renderThreadRoot } from "../../../functions/src/notify/blocks.js";
import { defangIoc } from "../../../functions/src/notify/defang.js";
import { replyFor } from "../../../functions/src/notify/event-reply.js";
import { disputeModal, INTERACTIVE_LIMITS } from "../../../functions/src/notify/interactive.js";
import { renderStatusBoard } from "../../../functions/src/notify/render-root.js";
import type { ChatMessage } from "../../../functions/src/ports/chat-sink.js";
import { investigate, type Run } from "../offline/support/harness.js";
import { openScenario } from "../offline/support/tools.js";
import * as fx from "./fixtures.js";
import { assertInert, HOSTILE } from "./hostile.js";

/**
 * Every bundled scenario's Slack thread, rendered by the notifier's own code from a real
 * offline investigation (the agent roles, the offline model, DuckDB over the scenario's logs,
 * its STIX bundle): the root, each reply the events produce, the verdict card before and after
 * an analyst's decision, and the Dispute modal. Each message must keep Block Kit's documented
 * limits, show every IOC defanged, and carry no live Slack syntax from untrusted text.
 */
const ROOT = "examples/scenarios";
const scenarios = existsSync(ROOT)
  ? readdirSync(ROOT).filter((name) =>
      ["notification.json", "logs", "intel/bundle.json"].every((f) => existsSync(join(ROOT, name, f))),
    )
  : [];

/** Block Kit's documented limits (api.slack.com/reference/block-kit/blocks and …/block-elements). */
const LIMITS = {
  ...SLACK_LIMITS,
  blockId: 255,
  actionsElements: INTERACTIVE_LIMITS.actionsElements,
} as const;

function textOf(value: unknown): string {
  return value && typeof value === "object" && "text" in value && typeof value.text === "string"
    ? value.text
    : "";
}

function checkLimits(message: ChatMessage, where: string): void {
  const blocks = message.blocks as JsonObject[];
  assert.ok(
    blocks.length > 0 && blocks.length <= LIMITS.blocksPerMessage,
    `${where}: ${blocks.length} blocks`,
  );
  assert.ok(message.text.length > 0 && message.text.length <= LIMITS.fallbackText, `${where}: fallback text`);
  for (const [i, block] of blocks.entries()) {
    const at = `${where} block ${i} (${String(block.type)})`;
    if (typeof block.block_id === "string")
      assert.ok(block.block_id.length <= LIMITS.blockId, `${at}: block_id`);
    switch (block.type) {
      case "header": {
        assert.equal(
          (block.text as JsonObject | undefined)?.type,
          "plain_text",
          `${at}: header is plain_text`,
        );
        const t = textOf(block.text);
        assert.ok(t.length > 0 && t.length <= LIMITS.headerText, `${at}: header ${t.length} chars`);
        break;
      }
      case "section": {
        assert.ok(block.text !== undefined || block.fields !== undefined, `${at}: text or fields`);
        if (block.text !== undefined) {
          const t = textOf(block.text);
          assert.ok(t.length > 0 && t.length <= LIMITS.sectionText, `${at}: section ${t.length} chars`);
        }
        if (block.fields !== undefined) {
          assert.ok(Array.isArray(block.fields), `${at}: fields is a list`);
          assert.ok(block.fields.length <= LIMITS.fieldsPerSection, `${at}: ${block.fields.length} fields`);
          for (const f of block.fields) {
            const t = textOf(f);
            assert.ok(t.length > 0 && t.length <= LIMITS.fieldText, `${at}: field ${t.length} chars`);
          }
        }
        break;
      }
      case "context": {
        assert.ok(Array.isArray(block.elements), `${at}: elements`);
        assert.ok(
          block.elements.length <= LIMITS.contextElements,
          `${at}: ${block.elements.length} elements`,
        );
        for (const e of block.elements) {
          const t = textOf(e);
          assert.ok(t.length > 0 && t.length <= LIMITS.contextText, `${at}: context text ${t.length}`);
        }
        break;
      }
      case "actions": {
        assert.ok(Array.isArray(block.elements), `${at}: elements`);
        assert.ok(
          block.elements.length <= LIMITS.actionsElements,
          `${at}: ${block.elements.length} elements`,
        );
        for (const e of block.elements as JsonObject[]) {
          const label = textOf(e.text);
          assert.ok(label.length > 0 && label.length <= INTERACTIVE_LIMITS.buttonText, `${at}: button text`);
          assert.ok(
            typeof e.action_id === "string" && e.action_id.length <= INTERACTIVE_LIMITS.actionId,
            `${at}: action_id`,
          );
          assert.ok(
            typeof e.value === "string" && e.value.length <= INTERACTIVE_LIMITS.buttonValue,
            `${at}: button value`,
          );
        }
        break;
      }
      case "divider":
        break;
      default:
        assert.fail(`${at}: a block type this check does not know`);
    }
  }
}

/** Every string a person could see in a message: block texts and the notification text. */
function visibleTexts(message: ChatMessage): string[] {
  return [message.text, ...fx.allTexts(message.blocks)];
}

/** IOC types whose raw form Slack would turn into a link (and a reader could click). */
const LINKABLE = new Set(["ip", "domain", "url", "email"]);

function threadOf(run: Run, finding: Finding, id: string): Promise<{ name: string; message: ChatMessage }[]> {
  const base: Investigation = fx.investigation({
    id,
    finding,
    iocValues: run.conclusion.iocs.map((i) => i.value),
    plan: run.initialPlan,
    status: "running",
    model: "offline-playbook",
  });
  const concluded: Investigation = {
    ...base,
    plan: run.plan,
    status: "concluded",
    conclusion: run.conclusion,
  };
  const store = {
    getStepResult: async (_id: string, stepId: string) => run.results.find((r) => r.stepId === stepId),
    listStepResults: async () => run.results,
    listReflections: async () => run.reflections,
  };
  const ev = (seq: number, overrides: Partial<InvestigationEvent>): InvestigationEvent =>
    fx.event({ investigationId: id, seq, ...overrides });
  const events: InvestigationEvent[] = [
    ev(1, { type: "created" }),
    ev(2, { type: "planned" }),
    ...run.results.map((r, i) => ev(3 + i, { type: "step_finished", stepId: r.stepId })),
    ...run.reflections.map((r, i) => ev(3 + run.results.length + i, { type: "reflected", at: r.createdAt })),
    ev(3 + run.results.length + run.reflections.length, { type: "concluded" }),
  ];
  return (async () => {
    const root = renderThreadRoot(base);
    const out = [{ name: "root", message: root }];
    const showedPlan = JSON.stringify(root.blocks).includes(run.initialPlan.objective.slice(0, 20));
    for (const event of events) {
      const inv = event.type === "concluded" ? concluded : base;
      const reply = await replyFor(event, inv, store, { showedPlan });
      if (reply) out.push({ name: `${event.type}${event.stepId ? ` ${event.stepId}` : ""}`, message: reply });
    }
    out.push({ name: "verdict card", message: renderStatusBoard(concluded, { sccButtons: true }) });
    const dispute: AnalystDecision = {
      actionId: "act-0123456789abcdef01234567",
      kind: "dispute",
      by: { id: "U0ANALYST", name: "ana" },
      ferretVerdict: run.conclusion.verdict,
      verdict: run.conclusion.verdict === "benign" ? "true_positive" : "benign",
      reason: HOSTILE.join(" "),
      at: "2025-06-11T05:00:00.000Z",
    };
    out.push({
      name: "verdict card after a dispute",
      message: renderStatusBoard({ ...concluded, analystDecisions: [dispute] }, { sccButtons: true }),
    });
    return out;
  })();
}

/** A finding whose attacker-controlled fields hold the hostile strings. */
function hostile(finding: Finding): Finding {
  return {
    ...finding,
    description: HOSTILE.join(" "),
    resource: { ...finding.resource, displayName: HOSTILE[0] ?? "" },
    sourceProperties: { ...finding.sourceProperties, note: HOSTILE.join("\n") },
  };
}

describe("every bundled scenario's Slack thread", () => {
  it("has the six bundled scenarios to render", () => {
    assert.ok(scenarios.length >= 6, `found ${scenarios.length} scenario(s)`);
  });

  for (const name of scenarios) {
    it(`${name}: within Block Kit's limits, IOCs defanged, untrusted text inert`, async (t) => {
      const dir = join(ROOT, name);
      const { finding, tools } = await openScenario(dir);
      try {
        const run = await investigate(finding, tools);
        for (const [variant, f] of [
          ["as published", finding],
          ["hostile finding fields", hostile(finding)],
        ] as const) {
          const thread = await threadOf(run, f, "inv-0123456789abcdef01234567");
          const chars = thread.reduce((n, m) => n + visibleTexts(m.message).join("").length, 0);
          t.diagnostic(
            `${name} (${variant}): ${thread.length - 3} replies, ${thread.reduce((n, m) => n + m.message.blocks.length, 0)} blocks, ${chars} chars`,
          );
          for (const { name: part, message } of thread) {
            const where = `${name} (${variant}) ${part}`;
            checkLimits(message, where);
            for (const text of visibleTexts(message)) {
              // ferret's own mention of the deciding analyst is the one Slack syntax allowed.
              assertInert(text.replace(/<@U0ANALYST>/g, "@analyst"), where);
            }
          }
          const everything = thread.flatMap((m) => visibleTexts(m.message)).join("\n");
          const iocs = [
            ...run.conclusion.iocs,
            ...(finding.indicators.ipAddresses ?? []).map((value) => ({
              type: "ip" as const,
              value,
            })),
          ].filter((i) => LINKABLE.has(i.type) && defangIoc(i) !== i.value);
          // As a whole name (decision 0046's rule, with the defanged `[.]` and `[@]` continuing a
          // name): `bob.schmidt` inside `bob.schmidt[@]lumenpay[.]eu` is the email's local part.
          const whole = (value: string) =>
            new RegExp(
              `(?<![\\p{L}\\p{N}_.@-]|\\[[.@]\\])${value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}\\p{N}_@-]|\\.[\\p{L}\\p{N}]|\\[[.@]\\])`,
              "iu",
            );
          for (const ioc of iocs) {
            assert.ok(
              !whole(ioc.value).test(everything),
              `${name} (${variant}): ${ioc.type} ${ioc.value} appears undefanged`,
            );
          }
          // Not vacuous: the verdict reply shows the conclusion's IOCs, defanged.
          const verdict = thread.find((m) => m.name === "concluded");
          assert.ok(verdict, `${name}: a verdict reply`);
          const shown = visibleTexts(verdict.message).join("\n");
          for (const ioc of run.conclusion.iocs.filter((i) => LINKABLE.has(i.type)).slice(0, 3))
            assert.ok(shown.includes(defangIoc(ioc)), `${name}: verdict shows ${defangIoc(ioc)}`);
        }
        const modal = disputeModal("inv-0123456789abcdef01234567", run.conclusion.verdict);
        const title = textOf(modal.title);
        assert.ok(title.length > 0 && title.length <= INTERACTIVE_LIMITS.modalTitle, `${name}: modal title`);
        assert.ok(String(modal.private_metadata).length <= INTERACTIVE_LIMITS.privateMetadata);
      } finally {
        await tools.close();
      }
    });
  }
});

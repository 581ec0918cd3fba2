import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { SLACK_LIMITS } from "../../../functions/src/notify/block-kit.js";
import {
  renderConclusion,
  renderReflection,
  renderStepFinished,
  renderStopped,
  renderThreadRoot,
} from "../../../functions/src/notify/blocks.js";
import type { ChatMessage } from "../../../functions/src/ports/chat-sink.js";
import * as fx from "./fixtures.js";

function textOf(obj: unknown): string {
  return obj && typeof obj === "object" && "text" in obj && typeof obj.text === "string" ? obj.text : "";
}

/** Checks every documented Block Kit limit on one message. */
function assertWithinLimits(message: ChatMessage, name: string): void {
  assert.ok(
    message.blocks.length <= SLACK_LIMITS.blocksPerMessage,
    `${name}: ${message.blocks.length} blocks`,
  );
  assert.ok(
    message.text.length > 0 && message.text.length <= SLACK_LIMITS.fallbackText,
    `${name}: fallback text`,
  );
  for (const block of message.blocks as JsonObject[]) {
    if (block.type === "header") {
      const t = textOf(block.text);
      assert.ok(t.length > 0 && t.length <= SLACK_LIMITS.headerText, `${name}: header ${t.length}`);
    }
    if (block.type === "section") {
      if (block.text !== undefined) {
        const t = textOf(block.text);
        assert.ok(t.length > 0 && t.length <= SLACK_LIMITS.sectionText, `${name}: section ${t.length}`);
      }
      if (block.fields !== undefined) {
        assert.ok(Array.isArray(block.fields) && block.fields.length <= SLACK_LIMITS.fieldsPerSection);
        for (const f of block.fields) assert.ok(textOf(f).length <= SLACK_LIMITS.fieldText, `${name}: field`);
      }
    }
    if (block.type === "context") {
      assert.ok(Array.isArray(block.elements) && block.elements.length <= SLACK_LIMITS.contextElements);
      for (const e of block.elements)
        assert.ok(textOf(e).length > 0 && textOf(e).length <= SLACK_LIMITS.contextText);
    }
  }
}

const long = (n: number, word: string) => `${word} `.repeat(Math.ceil(n / (word.length + 1))).slice(0, n);

function hugeConclusion() {
  return fx.conclusion({
    summary: long(3_000, "summary"),
    keyFindings: Array.from({ length: 40 }, (_, i) => ({
      finding: `${i}: ${long(490, "finding")}`,
      evidence: Array.from({ length: 5 }, (_, j) => ({
        stepId: `step${j}`,
        source: "cloudaudit_googleapis_com_activity",
        detail: long(480, `evidence-${i}-${j}`),
      })),
    })),
    iocs: Array.from({ length: 60 }, (_, i) => ({
      type: "domain" as const,
      value: `c2-${i}.${long(200, "sub")}.evil.example.com`.replace(/ /g, ""),
      context: long(400, "context"),
    })),
    recommendedActions: Array.from({ length: 30 }, (_, i) => ({
      action: long(500, `action${i}`),
      priority: (["immediate", "soon", "later"] as const)[i % 3] ?? "later",
    })),
    openQuestions: Array.from({ length: 30 }, () => long(500, "question")),
    mitre: Array.from({ length: 30 }, () => ({
      tactic: "Persistence",
      techniqueId: "T1098",
      techniqueName: long(200, "x"),
    })),
  });
}

describe("Block Kit limits", () => {
  it("a conclusion with 40 key findings and 60 IOCs stays within 50 blocks and 3000 chars per section", () => {
    const message = renderConclusion(fx.investigation(), hugeConclusion());
    assertWithinLimits(message, "conclusion");
    const texts = fx.allTexts(message.blocks);
    // The provenance and console link survive the cut, and the cut is announced.
    assert.ok(texts.some((t) => t.includes("model: gemini-2.5-pro")));
    assert.ok(texts.some((t) => t.includes("|Open the finding in Security Command Center>")));
    assert.ok(texts.some((t) => /more (key findings|IOCs|blocks) not shown/.test(t)));
  });

  it("a plan with 30 long steps keeps the root within limits", () => {
    const plan = fx.plan();
    plan.steps = Array.from({ length: 30 }, (_, i) => ({
      id: `step-${i}`,
      description: long(1_000, "describe"),
      tools: ["log_analysis", "threat_intel_lookup", "related_findings", "memory_search"],
      expected: "x",
      dependsOn: Array.from({ length: 10 }, (_, j) => `step-${j}`),
      status: "pending" as const,
      addedInRevision: 0,
    }));
    const root = renderThreadRoot(
      fx.investigation({
        plan,
        finding: fx.finding({ description: long(4_000, "desc"), category: long(400, "cat") }),
      }),
    );
    assertWithinLimits(root, "root");
    assert.ok(fx.allTexts(root.blocks).some((t) => /more steps not shown/.test(t)));
  });

  it("step, reflection and needs_human replies with oversized content stay within limits", () => {
    const inv = fx.investigation({ reason: long(5_000, "reason") });
    const result = fx.stepResult({
      summary: long(5_000, "summary"),
      facts: Array.from({ length: 60 }, () => long(500, "fact")),
      error: long(3_000, "err"),
    });
    result.toolCalls = Array.from({ length: 80 }, (_, i) => ({
      id: `c${i}`,
      name: "log_analysis",
      args: {},
      ok: false,
      summary: "",
      error: long(1_000, "boom"),
      durationMs: 1,
    }));
    const reflection = fx.reflection({
      insights: Array.from({ length: 40 }, () => long(500, "insight")),
      rationale: long(5_000, "why"),
    });
    const results = Array.from({ length: 40 }, (_, i) => ({ ...result, stepId: `s${i}` }));
    assertWithinLimits(renderStepFinished(inv, fx.event({ type: "step_finished" }), result), "step");
    assertWithinLimits(renderReflection(inv, fx.event({ type: "reflected" }), reflection), "reflection");
    assertWithinLimits(
      renderStopped("needs_human", inv, fx.event({ type: "needs_human" }), results),
      "needs_human",
    );
    assertWithinLimits(renderStopped("failed", inv, fx.event({ type: "failed" }), results), "failed");
  });
});

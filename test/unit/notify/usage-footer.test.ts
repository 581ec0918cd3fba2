import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { printConclusion } from "../../../functions/src/cli/progress.js";
import { renderConclusion } from "../../../functions/src/notify/render-conclusion.js";
import * as fx from "./fixtures.js";

const priced = fx.investigation({
  status: "concluded",
  counters: {
    ...fx.investigation().counters,
    stepsExecuted: 4,
    usage: {
      llmCalls: 14,
      inputTokens: 52_310,
      cachedInputTokens: 12_288,
      outputTokens: 3_904,
      thinkingTokens: 1_210,
      costUsd: 0.1139,
    },
  },
});
const LINE = "14 model calls · 52,310 tokens in (12,288 cached) · 3,904 out (1,210 thinking) · ≈ $0.1139";

describe("per-investigation tokens and estimated cost", () => {
  it("appear in the Slack verdict card's footer when a priced model did the work", () => {
    const texts = fx.allTexts(renderConclusion(priced, fx.conclusion()).blocks);
    assert.ok(
      texts.some((t) => t.includes(LINE)),
      texts.join("\n"),
    );
  });

  it("do not appear for a run without a cost estimate (offline playbook, unpriced model)", () => {
    const texts = fx.allTexts(renderConclusion(fx.investigation(), fx.conclusion()).blocks);
    assert.ok(!texts.some((t) => t.includes("model calls")));
  });

  it("close the CLI's conclusion", () => {
    const lines: string[] = [];
    printConclusion(
      { line: (l) => lines.push(...l.split("\n")) },
      { ...priced, conclusion: fx.conclusion() },
    );
    assert.ok(lines.some((l) => l.includes(`${LINE} · 4 steps`)));
  });
});

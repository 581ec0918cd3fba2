import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { tokensOf } from "../../../functions/src/app/governor.js";
import * as fx from "../notify/fixtures.js";

describe("the governor counts only model tokens (issue 29)", () => {
  it("an LLM's tokens count against the limits", () => {
    assert.equal(tokensOf(fx.investigation()), 1_500);
  });

  it("an offline run adds none, also a record written while the offline model still estimated", () => {
    const estimated = fx.investigation({
      model: "offline-playbook",
      counters: {
        ...fx.investigation().counters,
        usage: { llmCalls: 3, inputTokens: 12_912, outputTokens: 3_687 },
      },
    });
    assert.equal(tokensOf(estimated), 0);
  });

  it("a run that fell back to the offline model keeps the LLM's tokens", () => {
    assert.equal(tokensOf(fx.investigation({ fellBackToOffline: true })), 1_500);
  });
});

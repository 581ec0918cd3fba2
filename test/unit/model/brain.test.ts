import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  brainOf,
  brainText,
  OFFLINE_MARK,
  OFFLINE_MODEL_NAME,
  withoutOfflineMark,
} from "../../../functions/src/model/brain.js";

describe("which brain produced an investigation", () => {
  it("the offline playbook model by its name, with or without a conclusion", () => {
    const brain = brainOf({ model: OFFLINE_MODEL_NAME, fellBackToOffline: false });
    assert.deepEqual(brain, { kind: "offline", model: OFFLINE_MODEL_NAME });
    assert.equal(brainText(brain), "offline playbook model — no LLM");
    // Records written by tests and older versions call it "offline".
    assert.equal(brainOf({ model: "offline", fellBackToOffline: false }).kind, "offline");
  });

  it("the LLM, and the LLM then the offline model after a fallback", () => {
    assert.equal(brainText(brainOf({ model: "gemini-2.5-pro", fellBackToOffline: false })), "gemini-2.5-pro");
    assert.equal(
      brainText(brainOf({ model: "gemini-2.5-pro", fellBackToOffline: true })),
      "gemini-2.5-pro, then the offline playbook model — no LLM after the LLM became unavailable",
    );
  });

  it("drops the offline mark where the brain is named once elsewhere", () => {
    assert.equal(withoutOfflineMark(`${OFFLINE_MARK} Verdict x.`), "Verdict x.");
    assert.equal(withoutOfflineMark("Verdict x."), "Verdict x.");
  });
});

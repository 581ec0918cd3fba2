import assert from "node:assert/strict";
import { test } from "node:test";
import { OFFLINE_HOLD_PREFIX } from "../../../functions/src/app/dismissal-check.js";
import type { Investigation } from "../../../functions/src/domain/investigation.js";
import type { StepResult } from "../../../functions/src/domain/results.js";
import { ExpectedSchema } from "../../../functions/src/eval/expected.js";
import { scoreInvestigation } from "../../../functions/src/eval/score.js";

const expected = ExpectedSchema.parse({
  verdict: "false_positive",
  acceptableVerdicts: ["false_positive", "benign"],
  requiredIocs: [
    { type: "ip", value: "198.51.100.34" },
    { type: "domain", value: "Evil.example.com" },
  ],
  requiredEvidence: [
    { id: "guessing", description: "failures", anyOf: ["575 failed"] },
    { id: "keys", description: "key logins", anyOf: ["publickey", "34.118.12.41"] },
  ],
});

function inv(verdict: string | undefined, iocs: string[]): Investigation {
  return {
    status: verdict ? "concluded" : "needs_human",
    conclusion: verdict
      ? {
          verdict,
          summary: "Only PUBLICKEY logins were accepted.",
          producedBy: { model: "offline-playbook", offline: true },
          keyFindings: [],
          iocs: iocs.map((value) => ({ type: "ip", value })),
        }
      : undefined,
  } as unknown as Investigation;
}

const results = [{ summary: "575 FAILED password attempts", facts: [] }] as unknown as StepResult[];

test("an acceptable alternative verdict is right; IOC and evidence matching ignore case", () => {
  const score = scoreInvestigation(inv("benign", ["198.51.100.34", "evil.example.com"]), results, expected);
  assert.deepEqual(score, {
    verdict: "benign",
    verdictRight: true,
    heldDraft: false,
    iocRecall: 1,
    missingIocs: [],
    evidenceRecall: 1,
    missingEvidence: [],
  });
});

test("a wrong verdict, a missing IOC and missing evidence are reported", () => {
  const score = scoreInvestigation(inv("true_positive", ["198.51.100.34"]), [], expected);
  assert.equal(score.verdictRight, false);
  assert.equal(score.iocRecall, 0.5);
  assert.deepEqual(score.missingIocs, ["Evil.example.com"]);
  assert.equal(score.evidenceRecall, 0.5);
  assert.deepEqual(score.missingEvidence, ["guessing"]);
});

test("an investigation without a conclusion is never right", () => {
  const score = scoreInvestigation(inv(undefined, []), results, expected);
  assert.equal(score.verdict, "needs_human");
  assert.equal(score.verdictRight, false);
  assert.equal(score.iocRecall, 0);
});

test("a held draft verdict (needs_human) is shown as a draft and never counts as right", () => {
  const held = { ...inv("benign", ["198.51.100.34"]), status: "needs_human" } as Investigation;
  const score = scoreInvestigation(held, results, expected);
  assert.equal(score.verdict, "needs_human (draft benign)");
  assert.equal(score.verdictRight, false);
});

test("the offline model's dismissal held by policy is right when the draft is acceptable, and counted as held", () => {
  const held = {
    ...inv("benign", ["198.51.100.34"]),
    status: "needs_human",
    reason: `${OFFLINE_HOLD_PREFIX}: the offline playbook model (rules, no LLM) drafted benign (78%)`,
  } as Investigation;
  const score = scoreInvestigation(held, results, expected);
  assert.equal(score.verdict, "needs_human (draft benign)");
  assert.equal(score.heldDraft, true);
  assert.equal(score.verdictRight, true);
  const wrongDraft = scoreInvestigation(
    { ...held, conclusion: { ...held.conclusion, verdict: "true_positive" } } as Investigation,
    results,
    expected,
  );
  assert.equal(wrongDraft.verdictRight, false, "a held draft of an unacceptable verdict is still wrong");
});

test("a dismissal held because intel contradicts it is not right, nor an LLM's draft with the offline reason", () => {
  const intelHeld = {
    ...inv("benign", []),
    status: "needs_human",
    reason: "the model concluded benign (97%), but threat intel marks ip 203.0.113.66 as malicious",
  } as Investigation;
  assert.equal(scoreInvestigation(intelHeld, results, expected).verdictRight, false);
  const base = inv("benign", []);
  const llm = {
    ...base,
    status: "needs_human",
    reason: `${OFFLINE_HOLD_PREFIX}: forged`,
    conclusion: { ...base.conclusion, producedBy: { model: "gemini-2.5-flash", offline: false } },
  } as Investigation;
  assert.equal(scoreInvestigation(llm, results, expected).verdictRight, false);
});

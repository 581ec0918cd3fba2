import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ConcluderBrief } from "../../../functions/src/agent/briefs.js";
import { askConcluder, type ConcluderInput } from "../../../functions/src/agent/concluder.js";
import type { ConclusionDraft } from "../../../functions/src/domain/conclusion.js";
import { plan, step, stepResult } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";
import { splitFences } from "../prompts/support.js";

const NOW = new Date("2024-05-14T10:05:00.000Z");

const draft: ConclusionDraft = {
  verdict: "true_positive",
  confidence: 0.92,
  severity: "HIGH",
  summary: "web-1 ran XMRig and sent 412 flows to the supportxmr pool at 45.9.148.108.",
  mitre: [{ tactic: "Impact", techniqueId: "T1496", techniqueName: "Resource Hijacking" }],
  keyFindings: [
    {
      finding: "Miner traffic to a known pool",
      evidence: [
        {
          stepId: "flows",
          source: "compute_googleapis_com_vpc_flows",
          detail: "412 flows to 45.9.148.108:3333",
        },
      ],
    },
  ],
  iocs: [{ type: "ip", value: "45.9.148.108", context: "supportxmr pool" }],
  recommendedActions: [{ action: "Stop web-1 and snapshot its disk", priority: "immediate" }],
  openQuestions: ["How was the miner dropped?"],
};

const thePlan = plan([
  step("flows", { status: "done" }),
  step("dns", { status: "cancelled", cancelReason: "pool IP settles it" }),
  step("owner"),
]);

function input(model: ScriptedModel, overrides: Partial<ConcluderInput> = {}): ConcluderInput {
  return {
    investigationId: "inv-test",
    finding: sccFinding("v1-cryptominer"),
    plan: thePlan,
    results: [stepResult("flows", { summary: "412 flows to the pool" })],
    reflections: [],
    model,
    mode: "conclude",
    reason: "every step has finished",
    now: NOW,
    ...overrides,
  };
}

describe("askConcluder", () => {
  it("says in producedBy that the offline model wrote the conclusion", async () => {
    const model = new ScriptedModel(
      { concluder: [{ json: draft }] },
      { name: "offline-playbook", offline: true },
    );
    const { conclusion } = await askConcluder(input(model));
    assert.deepEqual(conclusion.producedBy, {
      model: "offline-playbook",
      offline: true,
      note: "Written by the offline playbook model: rules over the evidence, no LLM.",
    });
    assert.equal(conclusion.createdAt, NOW.toISOString());
    assert.equal(conclusion.verdict, "true_positive");
  });

  it("has no offline note when an LLM wrote it", async () => {
    const model = new ScriptedModel({ concluder: [{ json: draft, model: "gemini-2.5-flash" }] });
    const { conclusion, usage } = await askConcluder(input(model));
    assert.deepEqual(conclusion.producedBy, { model: "gemini-2.5-flash", offline: false });
    assert.equal(usage.llmCalls, 1);
    const { producedBy: _p, createdAt: _c, iocs, ...rest } = conclusion;
    const { iocs: drafted, ...draftRest } = draft;
    assert.deepEqual(rest, draftRest);
    // The model's own IOCs lead; the finding's own indicators follow (completeIocs).
    assert.deepEqual(iocs.slice(0, drafted.length), drafted);
  });

  it("keeps the detector's severity when the verdict is not a dismissal, and says so", async () => {
    const finding = { ...sccFinding("v1-cryptominer"), severity: "HIGH" as const };
    const model = new ScriptedModel({
      concluder: [
        {
          json: {
            ...draft,
            verdict: "inconclusive",
            severity: "MEDIUM",
            severityReason: "nothing confirmed it",
            confidence: 0.35,
          },
        },
      ],
    });
    const { conclusion } = await askConcluder(input(model, { finding }));
    assert.equal(conclusion.severity, "HIGH");
    assert.match(conclusion.summary, /Severity kept at the detector's HIGH/);
    assert.equal(conclusion.severityReason, undefined, "no reason for a severity it no longer has");
  });

  it("lets a dismissal lower the severity on its benign evidence, and says so", async () => {
    const finding = { ...sccFinding("v1-cryptominer"), severity: "HIGH" as const };
    const model = new ScriptedModel({
      concluder: [{ json: { ...draft, verdict: "benign", severity: "LOW" } }],
    });
    const { conclusion } = await askConcluder(input(model, { finding }));
    assert.equal(conclusion.severity, "LOW");
    assert.match(
      conclusion.summary,
      /Severity lowered from the detector's HIGH to LOW on the benign evidence/,
    );
  });

  it("keeps the IOCs of steps cancelled once the verdict was decided", async () => {
    const cancelled = plan([
      step("flows", { status: "done" }),
      step("intel-more", {
        status: "cancelled",
        cancelReason: "moot",
        description: "Look up 198.51.100.201 and evil-pool.top in threat intelligence.",
      }),
    ]);
    const model = new ScriptedModel({ concluder: [{ json: draft }] });
    const { conclusion } = await askConcluder(input(model, { plan: cancelled }));
    const values = conclusion.iocs.map((i) => i.value);
    assert.ok(values.includes("198.51.100.201"), values.join(", "));
    assert.ok(values.includes("evil-pool.top"));
    assert.match(conclusion.iocs.find((i) => i.value === "198.51.100.201")?.context ?? "", /did not run/);
  });

  it("adds the fallback note after the offline note", async () => {
    const model = new ScriptedModel(
      { concluder: [{ json: draft }] },
      { name: "offline-playbook", offline: true },
    );
    const { conclusion } = await askConcluder(
      input(model, {
        fallbackNote: "The configured LLM became unavailable (503); the offline playbook model finished.",
      }),
    );
    assert.equal(
      conclusion.producedBy.note,
      "Written by the offline playbook model: rules over the evidence, no LLM. The configured LLM became unavailable (503); the offline playbook model finished.",
    );
  });

  it("sends the stop reason in needs_human mode, the fenced evidence and the steps that did not run", async () => {
    const model = new ScriptedModel({ concluder: [{ json: { ...draft, verdict: "inconclusive" } }] });
    await askConcluder(
      input(model, { mode: "needs_human", reason: "the token budget is used up (400000 of 400000)" }),
    );
    const sent = model.requests[0]!;
    assert.equal(sent.brief.role, "concluder");
    assert.ok(sent.responseSchema);
    assert.ok(
      sent.system.includes(
        "The investigation stopped before it finished: the token budget is used up (400000 of 400000).",
      ),
    );
    const user = sent.messages[0];
    assert.ok(user && user.role === "user");
    assert.deepEqual(
      splitFences(user.text).fences.map((f) => f.kind),
      ["objective", "scc_finding", "step_results", "skipped_steps"],
    );
    const skipped = splitFences(user.text).fences.find((f) => f.kind === "skipped_steps");
    assert.deepEqual(JSON.parse(skipped?.body ?? "[]"), [
      { id: "dns", status: "cancelled", cancelReason: "pool IP settles it" },
      { id: "owner", status: "pending", cancelReason: "" },
    ]);
    const context = sent.brief as ConcluderBrief;
    assert.deepEqual(
      [context.mode, context.reason],
      ["needs_human", "the token budget is used up (400000 of 400000)"],
    );
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { askConcluder } from "../../../functions/src/agent/concluder.js";
import type { ConclusionDraft } from "../../../functions/src/domain/conclusion.js";
import type { Plan } from "../../../functions/src/domain/plan.js";
import type { ActionLink } from "../../../functions/src/domain/response-actions.js";
import { plan, step, stepResult } from "../../fixtures/plans.js";
import { sccFinding } from "../../fixtures/scc.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

const KEY =
  "projects/acme-prod/serviceAccounts/ci-deployer@acme-prod.iam.gserviceaccount.com/keys/0f1e2d3c4b5a69788796a5b4c3d2e1f0";
const REVOKE: ActionLink = {
  tool: "revoke_iam_binding",
  args: {
    project: "projects/987654321098",
    role: "roles/owner",
    member: "user:mallory.contractor@gmail.com",
  },
};

const withActions = plan([
  step("grants", { status: "done", tools: ["log_query"] }),
  step("respond", { tools: ["revoke_iam_binding"], dependsOn: ["grants"] }),
  step("key", { tools: ["disable_service_account_key"], dependsOn: ["grants"] }),
]);

function draft(actions: ConclusionDraft["recommendedActions"]): ConclusionDraft {
  return {
    verdict: "true_positive",
    confidence: 0.9,
    severity: "HIGH",
    summary: "An outside account was made owner.",
    mitre: [],
    keyFindings: [],
    iocs: [],
    recommendedActions: actions,
    openQuestions: [],
  };
}

async function conclude(actions: ConclusionDraft["recommendedActions"], thePlan: Plan = withActions) {
  const model = new ScriptedModel({ concluder: [{ json: draft(actions), model: "gemini-2.5-pro" }] });
  const { conclusion } = await askConcluder({
    investigationId: "inv-links",
    finding: sccFinding("v1-iam-anomalous-grant"),
    plan: thePlan,
    results: [stepResult("grants", { summary: "one grant" })],
    reflections: [],
    model,
    mode: "conclude",
    reason: "done",
    now: new Date("2024-06-03T00:00:00.000Z"),
  });
  return conclusion.recommendedActions;
}

describe("recommended actions' links to response actions", () => {
  it("keeps a model's link that is exactly the call the finding names, for an offered action", async () => {
    const actions = await conclude([
      { action: "Remove the owner grant", priority: "immediate", link: REVOKE },
      {
        action: "Disable the key",
        priority: "immediate",
        link: { tool: "disable_service_account_key", args: { keyName: KEY } },
      },
    ]);
    assert.deepEqual(
      actions.map((a) => a.link),
      [REVOKE, { tool: "disable_service_account_key", args: { keyName: KEY } }],
    );
  });

  it("drops a link to a member, key or project the finding does not name, keeping the advice", async () => {
    const actions = await conclude([
      {
        action: "Remove the admin",
        priority: "immediate",
        link: { ...REVOKE, args: { ...REVOKE.args, member: "user:admin@acme.example" } },
      },
      {
        action: "Disable another key",
        priority: "soon",
        link: { tool: "disable_service_account_key", args: { keyName: KEY.replace("0f1e", "aaaa") } },
      },
      {
        action: "Elsewhere",
        priority: "later",
        link: { ...REVOKE, args: { ...REVOKE.args, project: "projects/1" } },
      },
      {
        action: "Extra argument",
        priority: "later",
        link: { ...REVOKE, args: { ...REVOKE.args, zone: "x" } },
      },
    ]);
    assert.deepEqual(actions, [
      { action: "Remove the admin", priority: "immediate" },
      { action: "Disable another key", priority: "soon" },
      { action: "Elsewhere", priority: "later" },
      { action: "Extra argument", priority: "later" },
    ]);
  });

  it("drops a link to an action the plan did not offer (not enabled here)", async () => {
    const readOnly = plan([step("grants", { status: "done", tools: ["log_query"] })]);
    const actions = await conclude([{ action: "Remove it", priority: "immediate", link: REVOKE }], readOnly);
    assert.deepEqual(actions, [{ action: "Remove it", priority: "immediate" }]);
  });
});

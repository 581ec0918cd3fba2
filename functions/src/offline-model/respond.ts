import type { Finding } from "../domain/finding/finding.js";
import type { StepDraft } from "../domain/plan.js";
import type { ActionTool } from "../domain/response-actions.js";
import { linkFor } from "../tools/actions/links.js";
import type { FamilyId } from "./families.js";

/**
 * The response action each family's true positive calls for: a leaked or stolen credential →
 * disable the key that made the call; a mining instance → cut its egress; an anomalous grant →
 * revoke it. Families without one never get an acting step.
 */
const RESPONSE: Partial<Record<FamilyId, { tool: ActionTool; what: string }>> = {
  credential_access: {
    tool: "disable_service_account_key",
    what: "Disable the service-account key that made the call",
  },
  cryptomining: {
    tool: "add_deny_egress_tag",
    what: "Cut the instance's egress with the deny-egress network tag",
  },
  iam_grant: { tool: "revoke_iam_binding", what: "Revoke the grant the finding reports" },
};

/**
 * The acting step a plan ends with, when the family has a response, the tool registry offers (the
 * config enabled) its tool, and the finding names exactly one target. It depends on every
 * evidence step, so a person sees the evidence before the approval request. The call is fixed
 * here from the finding's structured fields; the tool layer holds it until a person approves.
 */
export function responseStep(
  family: FamilyId,
  finding: Finding,
  offered: readonly string[],
  after: readonly string[],
): StepDraft | undefined {
  const response = RESPONSE[family];
  if (!response || !offered.includes(response.tool)) return undefined;
  const link = linkFor(response.tool, finding);
  if (!link) return undefined;
  return {
    id: "respond",
    description: `${response.what}, if the evidence confirms the finding. Acting: ${response.tool} runs only after a person approves this exact call.`,
    tools: [response.tool],
    expected: "A person approves or denies the call; approved, the change is made and reported.",
    dependsOn: [...after],
    calls: [{ tool: link.tool, args: { ...link.args } }],
  };
}

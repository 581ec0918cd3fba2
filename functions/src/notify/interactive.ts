import type { AnalystActionKind } from "../domain/analyst.js";
import { type Verdict, VerdictSchema } from "../domain/conclusion.js";
import type { JsonObject } from "../domain/json.js";
import { VERDICT_LABEL } from "./presentation.js";

/**
 * The interactive parts of ferret's messages: buttons on the verdict card and the dispute
 * modal. Their ids are the contract with the interactions endpoint (slack/interaction.ts
 * parses exactly these), so both sides import them from here.
 */

/** Slack's documented limits for interactive elements. */
export const INTERACTIVE_LIMITS = {
  actionsElements: 25,
  buttonText: 75,
  actionId: 255,
  buttonValue: 2_000,
  modalTitle: 24,
  modalButton: 24,
  privateMetadata: 3_000,
  inputLabel: 2_000,
  optionText: 75,
} as const;

export const ACTION_IDS = {
  confirm: "ferret_confirm",
  dispute: "ferret_dispute",
  scc_mute: "ferret_scc_mute",
  scc_inactive: "ferret_scc_inactive",
  reinvestigate: "ferret_reinvestigate",
} as const satisfies Record<AnalystActionKind, string>;

/** Approve / Deny on an approval request; the value is `<investigation id>/<approval id>`. */
export const APPROVAL_ACTION_IDS = {
  approve: "ferret_approve",
  deny: "ferret_deny",
} as const;

export const DISPUTE_VIEW = {
  callbackId: "ferret_dispute_modal",
  verdictBlock: "verdict",
  verdictAction: "verdict_select",
  reasonBlock: "reason",
  reasonAction: "reason_input",
} as const;

export interface CardButtons {
  /** Confirm / Dispute: only once there is a verdict to agree or disagree with. */
  verdict: boolean;
  /** Mute in SCC / Mark inactive in SCC, when the operator enabled them. */
  scc: boolean;
  /** Re-investigate: once the investigation has stopped, whatever its outcome. */
  reinvestigate?: boolean;
}

export function button(
  text: string,
  actionId: string,
  value: string,
  style?: "primary" | "danger",
): JsonObject {
  return {
    type: "button",
    text: { type: "plain_text", text, emoji: true },
    action_id: actionId,
    value,
    ...(style ? { style } : {}),
  };
}

/** The value of every button is the investigation id, nothing a click could forge into more. */
export function cardActions(investigationId: string, buttons: CardButtons): JsonObject | undefined {
  const elements: JsonObject[] = [];
  if (buttons.verdict) {
    elements.push(button("👍 Confirm", ACTION_IDS.confirm, investigationId, "primary"));
    elements.push(button("✋ Dispute", ACTION_IDS.dispute, investigationId));
  }
  if (buttons.scc) {
    elements.push(button("🔕 Mute in SCC", ACTION_IDS.scc_mute, investigationId));
    elements.push(button("💤 Mark inactive in SCC", ACTION_IDS.scc_inactive, investigationId, "danger"));
  }
  if (buttons.reinvestigate) {
    elements.push(button("🔁 Re-investigate", ACTION_IDS.reinvestigate, investigationId));
  }
  if (elements.length === 0) return undefined;
  return { type: "actions", block_id: "ferret_verdict_actions", elements };
}

/** The dispute modal: the right verdict and a reason. The investigation id rides in private_metadata. */
export function disputeModal(investigationId: string, ferretVerdict: Verdict | undefined): JsonObject {
  const options = VerdictSchema.options
    .filter((v) => v !== ferretVerdict)
    .map((v) => ({
      text: { type: "plain_text", text: `${VERDICT_LABEL[v].emoji} ${VERDICT_LABEL[v].text}`, emoji: true },
      value: v,
    }));
  return {
    type: "modal",
    callback_id: DISPUTE_VIEW.callbackId,
    private_metadata: investigationId,
    title: { type: "plain_text", text: "Dispute the verdict" },
    submit: { type: "plain_text", text: "Dispute" },
    close: { type: "plain_text", text: "Cancel" },
    blocks: [
      {
        type: "input",
        block_id: DISPUTE_VIEW.verdictBlock,
        label: { type: "plain_text", text: "The right verdict" },
        element: { type: "static_select", action_id: DISPUTE_VIEW.verdictAction, options },
      },
      {
        type: "input",
        block_id: DISPUTE_VIEW.reasonBlock,
        label: { type: "plain_text", text: "Why (ferret learns from this for similar findings)" },
        element: {
          type: "plain_text_input",
          action_id: DISPUTE_VIEW.reasonAction,
          multiline: true,
          min_length: 3,
          max_length: 1_000,
        },
      },
    ],
  };
}

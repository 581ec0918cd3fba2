import type { ApprovalRecord } from "../domain/approval-record.js";
import type { JsonObject } from "../domain/json.js";
import type { ChatMessage } from "../ports/chat-sink.js";
import { type Block, context, fitBlocks, header, SLACK_LIMITS, section } from "./block-kit.js";
import { APPROVAL_ACTION_IDS, button, INTERACTIVE_LIMITS } from "./interactive.js";
import { md, slackMention, untrusted } from "./mrkdwn.js";
import { fallbackText } from "./render-text.js";

/**
 * The message that asks a person to approve one acting call, and later shows what became of
 * it. The call is shown exactly as it would run (tool, every argument, the tool's dry-run
 * preview, the digest the approval binds to); all of it came from a model that read attacker
 * text, so it is fenced, escaped and defanged like any untrusted value. Buttons are offered
 * only while the request is pending.
 */

/** Room for the argument JSON inside one section, after its title and the code fence. */
const ARGS_MAX = SLACK_LIMITS.sectionText - 200;
const PREVIEW_MAX = SLACK_LIMITS.sectionText - 200;

export function approvalButtonValue(investigationId: string, approvalId: string): string {
  return `${investigationId}/${approvalId}`;
}

function actions(record: ApprovalRecord): Block {
  const value = approvalButtonValue(record.request.investigationId, record.approvalId);
  if (value.length > INTERACTIVE_LIMITS.buttonValue) throw new Error("approval button value too long");
  return {
    type: "actions",
    block_id: `ferret_approval_${record.approvalId}`,
    elements: [
      button("✅ Approve", APPROVAL_ACTION_IDS.approve, value, "primary"),
      button("⛔ Deny", APPROVAL_ACTION_IDS.deny, value, "danger"),
    ] as JsonObject[],
  };
}

function status(record: ApprovalRecord): Block[] {
  const who = record.decidedBy ? slackMention(record.decidedBy.id) : md`nobody`;
  const when = record.decidedAt ?? "";
  switch (record.status) {
    case "pending":
      return [];
    case "approved": {
      const lines = [section(md`✅ *Approved* by ${who} at ${when}`)];
      if (record.result) {
        const mark = record.result.ok ? md`▶️ *Ran*` : md`⚠️ *Ran and failed*`;
        lines.push(
          section(md`${mark} at ${record.result.ranAt}: ${untrusted(record.result.summary, { max: 1_000 })}`),
        );
      }
      return lines;
    }
    case "denied":
      return [section(md`⛔ *Denied* by ${who} at ${when}. ferret continues without this call.`)];
    case "timed_out":
      return [
        section(
          md`⌛ *Timed out* at ${when}: nobody approved it in time. ferret continues without this call.`,
        ),
      ];
  }
}

export interface ApprovalMessageOptions {
  /** When the workflow stops waiting; shown while pending. */
  expiresAt?: string;
}

export function renderApprovalMessage(
  record: ApprovalRecord,
  options: ApprovalMessageOptions = {},
): ChatMessage {
  const { request } = record;
  const title = md`🔐 Approval needed: step ${record.stepId} wants to run ${untrusted(request.tool, { max: 64, inline: true })}`;
  const args = JSON.stringify(request.args, null, 2);
  const body: Block[] = [
    header(title),
    section(md`*Tool* \`${untrusted(request.tool, { max: 64, inline: true })}\`  ·  *Step* ${record.stepId}`),
    section(
      md`*Arguments* (exactly what will run; written by a model, shown as data)\n\`\`\`${untrusted(args, { max: ARGS_MAX })}\`\`\``,
    ),
    section(
      request.preview
        ? md`*Dry run* (the tool's preview of what would change)\n\`\`\`${untrusted(request.preview, { max: PREVIEW_MAX })}\`\`\``
        : md`*Dry run* — this tool offers no preview; judge the call by its arguments.`,
    ),
    ...status(record),
  ];
  const footer: Block[] = [
    context([
      md`Approval ${record.approvalId} · sha256 of the call ${request.argsDigest.slice(0, 16)}…${
        record.status === "pending" && options.expiresAt ? md` · waits until ${options.expiresAt}` : md``
      } · only listed approvers can decide; the first decision counts`,
    ]),
    ...(record.status === "pending" ? [actions(record)] : []),
  ];
  const text = fallbackText(
    record.status === "pending"
      ? md`Approval needed: ${untrusted(request.tool, { max: 64, inline: true })} (step ${record.stepId})`
      : md`${untrusted(request.tool, { max: 64, inline: true })} (step ${record.stepId}): ${record.status.replace("_", " ")}`,
  );
  return { text, blocks: fitBlocks(body, footer) };
}

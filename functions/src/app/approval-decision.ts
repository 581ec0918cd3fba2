import type { Config } from "../config/config.js";
import type { ApprovalClick } from "../domain/analyst.js";
import type { ApprovalRecord } from "../domain/approval-record.js";
import { NotFoundError } from "../domain/errors.js";
import type { Investigation } from "../domain/investigation.js";
import { approvalMessageTs } from "../notify/approval-notes.js";
import { renderApprovalMessage } from "../notify/render-approval.js";
import type { Logger } from "../platform/logger.js";
import type { ChatSink } from "../ports/chat-sink.js";
import type { EventBus } from "../ports/event-bus.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import type { WorkflowCallbacks } from "../ports/workflow-callbacks.js";
import { publishEvents } from "./publish.js";

export interface ApprovalDecisionDeps {
  config: Pick<Config, "slack">;
  store: InvestigationStore;
  bus: EventBus;
  sink: ChatSink;
  /** Absent where no workflow waits (then the decision is recorded and the wait times out). */
  callbacks?: WorkflowCallbacks;
  logger: Logger;
}

export interface ApprovalDecisionOutcome {
  /** refused: the user is not an approver; decided: this click decided; already: someone had. */
  result: "refused" | "decided" | "already_decided";
  status?: ApprovalRecord["status"];
  messageUpdated: boolean;
  /** The callback's HTTP status, or "none" when there was nobody to wake. */
  callback: number | "none";
}

/**
 * Carries out one Approve / Deny click: only listed approvers count; the first decision wins
 * (one transaction on the investigation), so a second click, a click by someone else or a
 * redelivery changes nothing. The approval message then shows who decided and when, and the
 * workflow is woken through its callback; it reads the decision from the store, not from the
 * callback, so a repeated callback cannot change what runs.
 */
export async function handleApprovalClick(
  click: ApprovalClick,
  deps: ApprovalDecisionDeps,
): Promise<ApprovalDecisionOutcome> {
  const log = deps.logger.child({ investigationId: click.investigationId, approvalId: click.approvalId });
  if (!deps.config.slack.approvers.includes(click.user.id)) {
    log.warn("approval click by someone not on slack.approvers refused", { user: click.user.id });
    return { result: "refused", messageUpdated: false, callback: "none" };
  }
  const status = click.decision === "approve" ? "approved" : "denied";
  const committed = await deps.store.update(click.investigationId, (current) => {
    const record = current.approvals?.find((a) => a.approvalId === click.approvalId);
    if (record?.status !== "pending") return undefined;
    const decided: ApprovalRecord = { ...record, status, decidedBy: click.user, decidedAt: click.at };
    return {
      investigation: {
        ...current,
        approvals: (current.approvals ?? []).map((a) => (a.approvalId === click.approvalId ? decided : a)),
        updatedAt: click.at,
      },
      events: [
        {
          type: "approval_decided",
          stepId: record.stepId,
          message: `${click.approvalId}: ${click.user.id} ${status} ${record.request.tool}`,
        },
      ],
    };
  });
  await publishEvents(deps.bus, committed.events);
  const record = recordOf(committed.investigation, click.approvalId);
  const decidedNow = committed.events.length > 0;
  const messageUpdated = await showDecision(record, deps);
  // Woken on every decided click, not only the deciding one: a redelivery after a lost
  // callback still wakes the workflow, which reads the same decision again.
  const callback = record.status === "pending" ? "none" : await wake(record, deps, log);
  log.info("approval click handled", { user: click.user.id, decidedNow, status: record.status, callback });
  return {
    result: decidedNow ? "decided" : "already_decided",
    status: record.status,
    messageUpdated,
    callback,
  };
}

function recordOf(inv: Investigation, approvalId: string): ApprovalRecord {
  const record = inv.approvals?.find((a) => a.approvalId === approvalId);
  if (!record) throw new NotFoundError(`investigation ${inv.id} has no approval ${approvalId}`);
  return record;
}

async function showDecision(record: ApprovalRecord, deps: ApprovalDecisionDeps): Promise<boolean> {
  const ts = await approvalMessageTs(deps.store, record.approvalId);
  if (!ts) return false;
  await deps.sink.update(ts, renderApprovalMessage(record));
  return true;
}

async function wake(
  record: ApprovalRecord,
  deps: ApprovalDecisionDeps,
  log: Logger,
): Promise<number | "none"> {
  if (!deps.callbacks) return "none";
  const { status } = await deps.callbacks.send(record.callbackUrl, {
    approvalId: record.approvalId,
    decision: record.status,
  });
  // 404: the execution stopped waiting (timed out, finished); the record still says what was decided.
  if (status === 404) log.warn("the workflow no longer waits on this approval", { status });
  return status;
}

import type { ApprovalRecord } from "../domain/approval-record.js";
import type { Investigation, InvestigationEvent } from "../domain/investigation.js";
import type { ChatSink } from "../ports/chat-sink.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import { type PostOnceDeps, postOnce } from "./post-once.js";
import { renderApprovalMessage } from "./render-approval.js";

/** Claim scope of approval messages, keyed by approval id; `<scope>-posted` holds the ts. */
export const APPROVAL_SCOPE = "slack-approval";

const APPROVAL_EVENTS: ReadonlySet<InvestigationEvent["type"]> = new Set([
  "approval_requested",
  "approval_decided",
  "action_ran",
]);

export function isApprovalEvent(type: InvestigationEvent["type"]): boolean {
  return APPROVAL_EVENTS.has(type);
}

/**
 * The approval id an approval event is about. The responder writes it first in the message
 * (`apr-…: …`); the message is ferret's own text, never a model's or a finding's.
 */
export function approvalIdOf(event: Pick<InvestigationEvent, "message">): string | undefined {
  return /^(apr-[a-f0-9]{24}):/.exec(event.message)?.[1];
}

export async function approvalMessageTs(
  store: Pick<InvestigationStore, "readClaim">,
  approvalId: string,
): Promise<string | undefined> {
  return (await store.readClaim(`${APPROVAL_SCOPE}-posted`, approvalId))?.ts;
}

export function expiryOf(record: ApprovalRecord, timeoutSeconds: number | undefined): string | undefined {
  if (timeoutSeconds === undefined) return undefined;
  return new Date(Date.parse(record.requestedAt) + timeoutSeconds * 1_000).toISOString();
}

export type ApprovalNote = "posted" | "already_posted" | "updated" | "skipped";

/**
 * A request posts the Approve / Deny message in the thread once; a decision, a timeout or a
 * result edits that message in place, rendered from the record as the store holds it now,
 * so a redelivery writes the same message again.
 */
export async function notifyApproval(
  event: InvestigationEvent,
  investigation: Investigation,
  rootTs: string,
  deps: { sink: ChatSink; claims: PostOnceDeps; timeoutSeconds?: number },
): Promise<{ note: ApprovalNote; ts?: string }> {
  const approvalId = approvalIdOf(event);
  const record = investigation.approvals?.find((a) => a.approvalId === approvalId);
  if (!approvalId || !record) {
    deps.claims.logger.warn("approval event without its record", { seq: event.seq, approvalId });
    return { note: "skipped" };
  }
  const message = renderApprovalMessage(record, { expiresAt: expiryOf(record, deps.timeoutSeconds) });
  if (event.type === "approval_requested") {
    const posted = await postOnce(
      {
        scope: APPROVAL_SCOPE,
        key: approvalId,
        post: () => deps.sink.post({ ...message, threadTs: rootTs }),
      },
      deps.claims,
    );
    return { note: posted.status, ts: posted.ts };
  }
  const ts = await approvalMessageTs(deps.claims.store, approvalId);
  if (!ts) return { note: "skipped" };
  await deps.sink.update(ts, message);
  return { note: "updated", ts };
}

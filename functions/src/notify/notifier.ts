import { createHash } from "node:crypto";
import { NotFoundError } from "../domain/errors.js";
import { type Investigation, type InvestigationEvent, TERMINAL_STATUSES } from "../domain/investigation.js";
import type { Logger } from "../platform/logger.js";
import type { ChatSink } from "../ports/chat-sink.js";
import type { ClaimStore, InvestigationReader } from "../ports/investigation-store.js";
import { isApprovalEvent, notifyApproval } from "./approval-notes.js";
import { renderThreadRoot } from "./blocks.js";
import { postingFor } from "./event-policy.js";
import { replyFor } from "./event-reply.js";
import { DEFAULT_POST_ONCE_POLICY, type PostOnceDeps, type PostOncePolicy, postOnce } from "./post-once.js";
import { withRelatedCount } from "./render-governor.js";
import { renderStatusBoard, type StatusBoardOptions } from "./render-root.js";
import { ROOT_SCOPE, rootTsOf } from "./thread-root.js";

export { ROOT_SCOPE, rootTsOf };

/** Claim scope of replies, keyed by id:seq (the root's is ROOT_SCOPE, thread-root.ts). */
export const EVENT_SCOPE = "slack-event";

export interface NotifierDeps {
  store: ClaimStore & InvestigationReader;
  sink: ChatSink;
  logger: Logger;
  now?: () => Date;
  policy?: Partial<PostOncePolicy>;
  /** How a delivery waits for a post in flight elsewhere; tests drive it with their clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Which buttons the verdict card offers; none of the SCC ones unless configured. */
  board?: StatusBoardOptions;
  /** approvals.timeoutSeconds, to show on an approval request when it stops waiting. */
  approvalTimeoutSeconds?: number;
}

export interface NotifyOutcome {
  investigationId: string;
  seq: number;
  type: InvestigationEvent["type"];
  root: "posted" | "existing" | "not_needed";
  reply: "posted" | "already_posted" | "skipped";
  rootTs?: string;
  replyTs?: string;
  /** Whether the root was replaced by the verdict card (chat.update). */
  rootUpdated?: boolean;
}

export function eventKey(event: Pick<InvestigationEvent, "investigationId" | "seq">): string {
  return `${event.investigationId}:${event.seq}`;
}

/**
 * One Slack thread per investigation; each event posted at most once however often Pub/Sub
 * delivers it. Retryable errors (rate limits, Slack 5xx, a root still being posted by another
 * delivery after a short in-process wait) are thrown so Pub/Sub redelivers; the claims make the redelivery a no-op for
 * whatever already went out.
 */
export async function handleInvestigationEvent(
  event: InvestigationEvent,
  deps: NotifierDeps,
): Promise<NotifyOutcome> {
  const base = { investigationId: event.investigationId, seq: event.seq, type: event.type };
  const posting = postingFor(event.type);
  if (posting === "skip") return { ...base, root: "not_needed", reply: "skipped" };

  const investigation = await deps.store.get(event.investigationId);
  if (!investigation) throw new NotFoundError(`investigation ${event.investigationId} does not exist`);
  const claims: PostOnceDeps = {
    store: deps.store,
    logger: deps.logger.child({
      investigationId: event.investigationId,
      seq: event.seq,
      eventType: event.type,
    }),
    now: deps.now ?? (() => new Date()),
    policy: { ...DEFAULT_POST_ONCE_POLICY, ...deps.policy },
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  };

  const root = await ensureRoot(investigation, deps.sink, claims);
  const rootOutcome = root.status === "posted" ? "posted" : "existing";
  if (event.type === "related") {
    const rootUpdated = await updateRelatedCount(investigation, root.ts, deps);
    return { ...base, root: rootOutcome, reply: "skipped", rootTs: root.ts, rootUpdated };
  }
  if (posting === "root_only") return { ...base, root: rootOutcome, reply: "skipped", rootTs: root.ts };
  if (isApprovalEvent(event.type)) {
    const done = await notifyApproval(event, investigation, root.ts, {
      sink: deps.sink,
      claims,
      ...(deps.approvalTimeoutSeconds ? { timeoutSeconds: deps.approvalTimeoutSeconds } : {}),
    });
    const reply = done.note === "posted" || done.note === "already_posted" ? done.note : "skipped";
    return { ...base, root: rootOutcome, reply, rootTs: root.ts, ...(done.ts ? { replyTs: done.ts } : {}) };
  }

  const message = await replyFor(event, investigation, deps.store, {
    showedPlan: root.record.plan === "shown",
  });
  if (!message) return { ...base, root: rootOutcome, reply: "skipped", rootTs: root.ts };
  const reply = await postOnce(
    {
      scope: EVENT_SCOPE,
      key: eventKey(event),
      post: () => deps.sink.post({ ...message, threadTs: root.ts }),
    },
    claims,
  );
  const rootUpdated = await refreshBoard(event, investigation, root.ts, deps);
  claims.logger.info("investigation event posted to chat", {
    root: rootOutcome,
    reply: reply.status,
    ts: reply.ts,
    rootUpdated,
  });
  return { ...base, root: rootOutcome, reply: reply.status, rootTs: root.ts, replyTs: reply.ts, rootUpdated };
}

/**
 * Once the investigation stops, the root becomes the verdict card. chat.update replaces the
 * whole message with what the store holds now, so a redelivery writes the same card again.
 */
async function refreshBoard(
  event: InvestigationEvent,
  investigation: Investigation,
  rootTs: string,
  deps: NotifierDeps,
): Promise<boolean> {
  if (!TERMINAL_EVENTS.has(event.type)) return false;
  return updateBoard(investigation, rootTs, deps.sink, deps.store, deps.board ?? { sccButtons: false });
}

export const BOARD_SCOPE = "slack-board";

/**
 * Replaces the root with the current card unless exactly this card was already written:
 * redeliveries and double clicks do not reach Slack again. Recorded after the update, so a
 * crash in between means one harmless identical update later.
 */
export async function updateBoard(
  investigation: Investigation,
  rootTs: string,
  sink: ChatSink,
  store: ClaimStore,
  board: StatusBoardOptions,
): Promise<boolean> {
  const card = withRelatedCount(renderStatusBoard(investigation, board), investigation);
  const digest = createHash("sha256").update(JSON.stringify(card)).digest("hex").slice(0, 24);
  const key = `${investigation.id}:${digest}`;
  // Also here, for a root whose post was recorded before the thread was remembered.
  await rememberThread(store, rootTs, investigation.id);
  if (await store.readClaim(BOARD_SCOPE, key)) return false;
  await sink.update(rootTs, card);
  await store.claimOnce(BOARD_SCOPE, key, { ts: rootTs });
  return true;
}

/**
 * A `related` event: the root shows the count the store holds now (the verdict card once
 * the investigation stopped, the finding and plan before), written once per card.
 */
async function updateRelatedCount(
  investigation: Investigation,
  rootTs: string,
  deps: NotifierDeps,
): Promise<boolean> {
  if (TERMINAL_STATUSES.includes(investigation.status))
    return updateBoard(investigation, rootTs, deps.sink, deps.store, deps.board ?? { sccButtons: false });
  const card = withRelatedCount(renderThreadRoot(investigation), investigation);
  const digest = createHash("sha256").update(JSON.stringify(card)).digest("hex").slice(0, 24);
  const key = `${investigation.id}:${digest}`;
  if (await deps.store.readClaim(BOARD_SCOPE, key)) return false;
  await deps.sink.update(rootTs, card);
  await deps.store.claimOnce(BOARD_SCOPE, key, { ts: rootTs });
  return true;
}

const TERMINAL_EVENTS: ReadonlySet<InvestigationEvent["type"]> = new Set([
  "concluded",
  "needs_human",
  "failed",
]);

/** Posts the thread root once, rendering the investigation as it stands when it goes out. */
async function ensureRoot(investigation: Investigation, sink: ChatSink, claims: PostOnceDeps) {
  const message = withRelatedCount(renderThreadRoot(investigation), investigation);
  const root = await postOnce(
    {
      scope: ROOT_SCOPE,
      key: investigation.id,
      post: () => sink.post(message),
      record: { plan: investigation.plan ? "shown" : "absent" },
    },
    claims,
  );
  if (root.status === "posted") await rememberThread(claims.store, root.ts, investigation.id);
  return root;
}

/**
 * Thread → investigation, so a question asked in a thread finds what it is about. Write-once:
 * the thread keeps naming the investigation it was opened for; a re-investigation in the same
 * thread is found from there (see app/thread-lookup.ts).
 */
export const THREAD_SCOPE = "slack-thread";

async function rememberThread(store: ClaimStore, rootTs: string, investigationId: string): Promise<void> {
  if (await store.readClaim(THREAD_SCOPE, rootTs)) return;
  await store.claimOnce(THREAD_SCOPE, rootTs, { investigationId });
}

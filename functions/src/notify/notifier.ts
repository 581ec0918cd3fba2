import { NotFoundError } from "../domain/errors.js";
import type { Investigation, InvestigationEvent } from "../domain/investigation.js";
import type { Logger } from "../platform/logger.js";
import type { ChatSink } from "../ports/chat-sink.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import { renderThreadRoot } from "./blocks.js";
import { postingFor } from "./event-policy.js";
import { replyFor } from "./event-reply.js";
import { DEFAULT_POST_ONCE_POLICY, type PostOnceDeps, type PostOncePolicy, postOnce } from "./post-once.js";

/** Claim scopes; the root's first attempt is keyed by the investigation id, replies by id:seq. */
export const ROOT_SCOPE = "slack-root";
export const EVENT_SCOPE = "slack-event";

export interface NotifierDeps {
  store: InvestigationStore;
  sink: ChatSink;
  logger: Logger;
  now?: () => Date;
  policy?: Partial<PostOncePolicy>;
  /** How a delivery waits for a post in flight elsewhere; tests drive it with their clock. */
  sleep?: (ms: number) => Promise<void>;
}

export interface NotifyOutcome {
  investigationId: string;
  seq: number;
  type: InvestigationEvent["type"];
  root: "posted" | "existing" | "not_needed";
  reply: "posted" | "already_posted" | "skipped";
  rootTs?: string;
  replyTs?: string;
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
  if (posting === "root_only") return { ...base, root: rootOutcome, reply: "skipped", rootTs: root.ts };

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
  claims.logger.info("investigation event posted to chat", {
    root: rootOutcome,
    reply: reply.status,
    ts: reply.ts,
  });
  return { ...base, root: rootOutcome, reply: reply.status, rootTs: root.ts, replyTs: reply.ts };
}

/** Posts the thread root once, rendering the investigation as it stands when it goes out. */
async function ensureRoot(investigation: Investigation, sink: ChatSink, claims: PostOnceDeps) {
  const message = renderThreadRoot(investigation);
  return postOnce(
    {
      scope: ROOT_SCOPE,
      key: investigation.id,
      post: () => sink.post(message),
      record: { plan: investigation.plan ? "shown" : "absent" },
    },
    claims,
  );
}

import { ChatError, ConflictError, errorMessage, FerretError } from "../domain/errors.js";
import type { Logger } from "../platform/logger.js";
import type { InvestigationStore } from "../ports/investigation-store.js";

/**
 * Posts a chat message at most once per key in the normal case, and at least once when a
 * process dies between posting and recording (docs/decisions/0008-slack-output.md):
 *
 *   1. claim attempt N of the key as pending (claimOnce on `<scope>`, key or key#N),
 *   2. post,
 *   3. record the ts (claimOnce on `<scope>-posted`); the first record wins.
 *
 * A post that throws marks its attempt failed (`<scope>-failed`) and rethrows, so the next
 * delivery may start attempt N+1 at once. A delivery that finds an attempt pending waits a
 * little for it in-process; a pending attempt nobody finished (the process died) is taken
 * over once older than `staleAfterMs`; until then deliveries get a retryable ConflictError
 * and Pub/Sub brings them back later. Claims are never released or rewritten:
 * every step is a write-once document, which is all the store promises.
 */

export interface PostOncePolicy {
  /**
   * Older pending attempts are presumed dead. Must exceed the notifier's function timeout
   * (a holder older than that was killed) and so the sink's worst-case post time.
   */
  staleAfterMs: number;
  /** Attempts per key before giving up with a non-retryable error. */
  maxAttempts: number;
  /**
   * How long a delivery waits in-process for an attempt in flight elsewhere to finish before
   * handing the wait to Pub/Sub. The holder usually finishes within seconds; each redelivery
   * spent waiting counts against the subscription's max delivery attempts.
   */
  holderWaitMs: number;
  /** How often the waiting delivery looks again. */
  holderPollMs: number;
}

export const DEFAULT_POST_ONCE_POLICY: PostOncePolicy = {
  staleAfterMs: 2 * 60_000,
  maxAttempts: 6,
  holderWaitMs: 15_000,
  holderPollMs: 500,
};

export interface PostOnceDeps {
  store: Pick<InvestigationStore, "claimOnce" | "readClaim">;
  logger: Logger;
  now: () => Date;
  policy: PostOncePolicy;
  /** Waits between looks at an attempt in flight; injectable so tests can drive the clock. */
  sleep?: (ms: number) => Promise<void>;
}

export interface PostOnceRequest {
  scope: string;
  key: string;
  post: () => Promise<{ ts: string }>;
  /** Stored with the ts for later readers (e.g. whether the thread root showed the plan). */
  record?: Record<string, string>;
}

export type PostOnceResult =
  | { status: "posted"; ts: string; record: Record<string, string> }
  | { status: "already_posted"; ts: string; record: Record<string, string> };

export function attemptKey(key: string, attempt: number): string {
  return attempt === 1 ? key : `${key}#${attempt}`;
}

const RECORD_TRIES = 3;

export async function postOnce(request: PostOnceRequest, deps: PostOnceDeps): Promise<PostOnceResult> {
  const { scope, key } = request;
  const postedScope = `${scope}-posted`;
  const log = deps.logger.child({ claimScope: scope, claimKey: key });

  const done = await deps.store.readClaim(postedScope, key);
  if (done?.ts) return { status: "already_posted", ts: done.ts, record: done };

  for (let attempt = 1; attempt <= deps.policy.maxAttempts; attempt += 1) {
    const akey = attemptKey(key, attempt);
    const claimedAt = deps.now().toISOString();
    if (await deps.store.claimOnce(scope, akey, { state: "pending", attempt: String(attempt), claimedAt })) {
      return runAttempt(request, akey, attempt, deps, log);
    }
    const seen = await awaitHolder(request, akey, deps);
    if (seen.kind === "posted") return { status: "already_posted", ts: seen.ts, record: seen.record };
    if (seen.kind === "failed") continue;
    if (seen.kind === "stale") {
      log.warn("taking over a stale post attempt; if it did post, Slack will show the message twice", {
        attempt,
        claimedAt: seen.claimedAt,
      });
      continue;
    }
    throw new ConflictError(`${scope} ${key}: attempt ${attempt} is in flight since ${seen.claimedAt}`);
  }
  throw new ChatError(`${scope} ${key}: gave up after ${deps.policy.maxAttempts} attempts`, false, {
    details: { scope, key },
  });
}

type HolderState =
  | { kind: "posted"; ts: string; record: Record<string, string> }
  | { kind: "failed" }
  | { kind: "stale"; claimedAt: string }
  | { kind: "in_flight"; claimedAt: string };

/**
 * Someone else holds attempt `akey`: watch it for up to `holderWaitMs` (never past the point
 * it goes stale) until it is posted, marked failed or stale.
 */
async function awaitHolder(request: PostOnceRequest, akey: string, deps: PostOnceDeps): Promise<HolderState> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const waitUntil = deps.now().getTime() + deps.policy.holderWaitMs;
  for (;;) {
    const posted = await deps.store.readClaim(`${request.scope}-posted`, request.key);
    if (posted?.ts) return { kind: "posted", ts: posted.ts, record: posted };
    if (await deps.store.readClaim(`${request.scope}-failed`, akey)) return { kind: "failed" };
    const holder = await deps.store.readClaim(request.scope, akey);
    const claimedAt = holder?.claimedAt ?? "?";
    const age = deps.now().getTime() - Date.parse(claimedAt);
    if (Number.isNaN(age) || age >= deps.policy.staleAfterMs) return { kind: "stale", claimedAt };
    const now = deps.now().getTime();
    if (now >= waitUntil) return { kind: "in_flight", claimedAt };
    await sleep(Math.min(deps.policy.holderPollMs, waitUntil - now));
  }
}

async function runAttempt(
  request: PostOnceRequest,
  akey: string,
  attempt: number,
  deps: PostOnceDeps,
  log: Logger,
): Promise<PostOnceResult> {
  let ts: string;
  try {
    ts = (await request.post()).ts;
  } catch (error) {
    await markFailed(request.scope, akey, error, deps, log);
    if (error instanceof FerretError) throw error;
    throw new ChatError(`posting failed: ${errorMessage(error)}`, true, { cause: error });
  }
  const record = { ...request.record, ts, attempt: String(attempt), postedAt: deps.now().toISOString() };
  const postedScope = `${request.scope}-posted`;
  let first = false;
  for (let i = 1; ; i += 1) {
    try {
      first = await deps.store.claimOnce(postedScope, request.key, record);
      break;
    } catch (error) {
      // The message is in Slack; losing its ts now means a duplicate after staleAfterMs.
      if (i >= RECORD_TRIES) throw error;
      log.warn("recording the posted ts failed; retrying", { attempt: i, error: errorMessage(error) });
    }
  }
  if (first) return { status: "posted", ts, record };
  // A takeover raced this attempt and both posted: everyone keeps using the first record.
  const winner = await deps.store.readClaim(postedScope, request.key);
  log.warn("message was posted twice; keeping the first recorded ts", {
    duplicateTs: ts,
    keptTs: winner?.ts,
  });
  return { status: "already_posted", ts: winner?.ts ?? ts, record: winner ?? record };
}

async function markFailed(
  scope: string,
  akey: string,
  error: unknown,
  deps: PostOnceDeps,
  log: Logger,
): Promise<void> {
  try {
    await deps.store.claimOnce(`${scope}-failed`, akey, {
      error: errorMessage(error).slice(0, 500),
      failedAt: deps.now().toISOString(),
    });
  } catch (markError) {
    // Without the mark the attempt is retried only after staleAfterMs; still correct.
    log.warn("could not mark the failed post attempt", { error: errorMessage(markError) });
  }
}

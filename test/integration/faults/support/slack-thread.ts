import type { InvestigationEvent } from "../../../../functions/src/domain/investigation.js";
import { postingFor } from "../../../../functions/src/notify/event-policy.js";
import { ROOT_SCOPE } from "../../../../functions/src/notify/notifier.js";
import type { InvestigationStore } from "../../../../functions/src/ports/investigation-store.js";
import type { RecordedRequest } from "../../../helpers/slack-receiver.js";

export interface Thread {
  roots: RecordedRequest[];
  replies: RecordedRequest[];
}

/** The thread roots that name the investigation, and the replies under the first one. */
export function threadOf(posts: readonly RecordedRequest[], investigationId: string): Thread {
  const roots = posts.filter(
    (p) => p.args.thread_ts === undefined && JSON.stringify(p.args).includes(investigationId),
  );
  const first = roots[0];
  const replies = first ? posts.filter((p) => p.args.thread_ts === first.answer.ts) : [];
  return { roots, replies };
}

/**
 * Replies the notifier owes for these events: one per event whose policy is "reply", except
 * the plan when the thread root already showed it (recorded with the root's claim).
 */
export async function repliesOwed(
  store: InvestigationStore,
  investigationId: string,
  events: readonly InvestigationEvent[],
): Promise<number> {
  const root = await store.readClaim(`${ROOT_SCOPE}-posted`, investigationId);
  return events.filter(
    (e) => postingFor(e.type) === "reply" && !(e.type === "planned" && root?.plan === "shown"),
  ).length;
}

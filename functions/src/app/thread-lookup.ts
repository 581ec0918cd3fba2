import { THREAD_SCOPE } from "../notify/notifier.js";
import type { InvestigationStore } from "../ports/investigation-store.js";

/** previous investigation id → its re-investigation's id (write-once: one re-run per investigation). */
export const REINVESTIGATION_SCOPE = "reinvestigation";

/** A chain of re-runs longer than this is a loop or an abuse; the latest found so far answers. */
const MAX_CHAIN = 50;

/**
 * The investigation a thread is about now: the one its root was posted for, or the latest
 * re-investigation of it (they share the thread). Undefined for a thread ferret did not open.
 */
export async function investigationOfThread(
  store: Pick<InvestigationStore, "readClaim">,
  threadTs: string,
): Promise<string | undefined> {
  const first = (await store.readClaim(THREAD_SCOPE, threadTs))?.investigationId;
  if (!first) return undefined;
  let id: string = first;
  for (let hop = 0; hop < MAX_CHAIN; hop++) {
    const next: string | undefined = (await store.readClaim(REINVESTIGATION_SCOPE, id))?.investigationId;
    if (!next) break;
    id = next;
  }
  return id;
}

import type { ClaimStore } from "../ports/investigation-store.js";

/**
 * Where an investigation's Slack thread starts. Its own file so readers of the thread (the
 * console, the analyst worker) do not import the notifier's rendering to find it.
 */

/** Claim scope of the thread root; its first attempt is keyed by the investigation id. */
export const ROOT_SCOPE = "slack-root";

/** The root's ts, once the notifier posted it; the analyst worker edits the same message. */
export async function rootTsOf(
  store: Pick<ClaimStore, "readClaim">,
  investigationId: string,
): Promise<string | undefined> {
  return (await store.readClaim(`${ROOT_SCOPE}-posted`, investigationId))?.ts;
}

import type { IngestDeps } from "./deps.js";

/** A launch claim older than this is considered abandoned (the claimer crashed). */
const LAUNCH_CLAIM_TTL_MS = 5 * 60_000;

/**
 * Starts the workflow of a queued investigation at most once however often it is asked:
 * the right to launch is claimed in a transaction, a failed launch releases the claim so the
 * caller's retry can launch at once, and a claim abandoned by a crash expires. The same
 * protocol ingest follows for a new finding (app/ingest.ts).
 */
export async function launchOnce(
  id: string,
  deps: Pick<IngestDeps, "store" | "launcher" | "now">,
): Promise<{ launched: boolean; executionId?: string }> {
  const now = deps.now();
  let claimed = false;
  await deps.store.update(id, (current) => {
    claimed = false;
    if (current.status !== "queued" || current.executionId) return undefined;
    const claimedAt = current.launchClaimedAt ? Date.parse(current.launchClaimedAt) : undefined;
    if (claimedAt !== undefined && now.getTime() - claimedAt < LAUNCH_CLAIM_TTL_MS) return undefined;
    claimed = true;
    return {
      investigation: { ...current, launchClaimedAt: now.toISOString(), updatedAt: now.toISOString() },
    };
  });
  if (!claimed) return { launched: false };
  const executionId = await launchClaimed(id, deps);
  return { launched: true, executionId };
}

/**
 * Starts the workflow of an investigation whose launch this caller has claimed, and records
 * its execution. A failed launch releases the claim, so a retry (or Pub/Sub's redelivery) can
 * launch at once instead of waiting for the claim to expire.
 */
export async function launchClaimed(
  id: string,
  deps: Pick<IngestDeps, "store" | "launcher" | "now">,
): Promise<string> {
  let executionId: string;
  try {
    ({ executionId } = await deps.launcher.launch(id));
  } catch (error) {
    await deps.store.update(id, (current) => {
      const { launchClaimedAt: _released, ...rest } = current;
      return { investigation: { ...rest, updatedAt: deps.now().toISOString() } };
    });
    throw error;
  }
  await deps.store.update(id, (current) => ({
    investigation: { ...current, executionId, updatedAt: deps.now().toISOString() },
  }));
  return executionId;
}

import type { AuthEvidence } from "./types.js";

/**
 * Login attempts that failed, per source: "Failed password" lines, or the "Invalid user"
 * lines when those are all there is (key-only sshd logs no password failure). Both describe
 * the same attempts, so they are never added together.
 */
export function failedAttempts(items: readonly AuthEvidence[]): number {
  const bySource = new Map<string, { failed: number; invalid: number }>();
  for (const a of items) {
    if (a.outcome !== "failed") continue;
    const key = a.sourceIp ?? "?";
    const entry = bySource.get(key) ?? { failed: 0, invalid: 0 };
    if (a.invalidUser) entry.invalid += a.count;
    else entry.failed += a.count;
    bySource.set(key, entry);
  }
  return [...bySource.values()].reduce((n, e) => n + Math.max(e.failed, e.invalid), 0);
}

export function acceptedLogins(items: readonly AuthEvidence[]): number {
  return items.filter((a) => a.outcome === "accepted").reduce((n, a) => n + a.count, 0);
}

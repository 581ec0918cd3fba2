import { createHash } from "node:crypto";

/**
 * Document layout:
 *   investigations/{id}                      the Investigation
 *   investigations/{id}/results/{stepId}     one StepResult per step, written once
 *   investigations/{id}/reflections/{wave}   one Reflection per wave, written once
 *   investigations/{id}/reflections/early-{stepId}   one early Reflection per decisive step
 *   investigations/{id}/events/{seq}         the append-only event log
 *   claims/{sha256(scope, key)}              once-only markers for side effects
 */
export const COLLECTIONS = {
  investigations: "investigations",
  claims: "claims",
} as const;

/**
 * Once-only markers are needed only while a message can still be delivered again: Pub/Sub
 * keeps an unacknowledged message at most 7 days and the dead-letter hold 14. Documents in
 * these collections carry `expireAt` and Firestore's TTL policy (terraform/firestore.tf)
 * deletes them after it, so the markers do not pile up forever.
 */
export const EXPIRE_AT_FIELD = "expireAt";
export const MARKER_TTL_MS = 30 * 24 * 3_600_000;
export const TTL_COLLECTIONS = ["claims", "memorySessions"] as const;

export function markerExpiry(now: Date): Date {
  return new Date(now.getTime() + MARKER_TTL_MS);
}

export const SUBCOLLECTIONS = {
  results: "results",
  reflections: "reflections",
  events: "events",
} as const;

// Zero-padded so the console and document-id ordering list them in numeric order.
export function eventDocId(seq: number): string {
  return String(seq).padStart(10, "0");
}

export function reflectionDocId(wave: number): string {
  return String(wave).padStart(6, "0");
}

/** A reflection taken as soon as a decisive step finished: one per step, apart from the waves' ids. */
export function earlyReflectionDocId(stepId: string): string {
  return `early-${stepId}`;
}

/**
 * Scopes and keys are free text (Slack thread keys, session ids) that may hold "/" or be
 * longer than a document id allows; a digest is always a valid id, and the newline keeps
 * ("a:b", "c") apart from ("a", "b:c").
 */
export function claimDocId(scope: string, key: string): string {
  return createHash("sha256").update(`${scope}\n${key}`).digest("hex");
}

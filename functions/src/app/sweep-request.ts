import { z } from "zod";

/**
 * What the `sweep` function is asked to do, one message on the sweep-requests topic:
 * - `scheduled`: Cloud Scheduler's periodic request (terraform/scheduler.tf) — sweep stalled
 *   investigations, then drain the governor's queue (freeing slots whose finish was never
 *   announced).
 * - `finished`: an investigation reached a terminal state (sent by the notifier) — free its
 *   governor slot and start what waits, without waiting for the next scheduled request.
 * - `drain`: ingest queued a new investigation — start it if the limits allow.
 * Requests for a drain are coalesced: at most one drain a second (app/drain-coalescer.ts).
 */
export const SweepRequestSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("scheduled") }).strict(),
  z.object({ kind: z.literal("finished"), investigationId: z.string().min(1) }).strict(),
  z.object({ kind: z.literal("drain") }).strict(),
]);

export type SweepRequest = z.infer<typeof SweepRequestSchema>;

/** The body Cloud Scheduler publishes (terraform/scheduler.tf, checked by test/unit/terraform). */
export const SCHEDULED_SWEEP: SweepRequest = { kind: "scheduled" };

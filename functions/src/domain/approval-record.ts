import { createHash } from "node:crypto";
import { z } from "zod";
import { type Approval, ApprovalRequestSchema } from "./approval.js";
import type { StepResult } from "./results.js";

/**
 * One acting call the workflow paused on, from the held request to its outcome. It lives on
 * the investigation document, so the first decision wins by the same transaction that guards
 * every other change, and the concluder reads the outcomes with the investigation.
 */

export const ApprovalIdSchema = z.string().regex(/^apr-[a-f0-9]{24}$/);

export const ApprovalStatusSchema = z.enum(["pending", "approved", "denied", "timed_out"]);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

const SlackUserSchema = z.object({
  id: z.string().regex(/^[UW][A-Z0-9]{2,}$/),
  name: z.string().max(80).optional(),
});

export const ApprovalRecordSchema = z.object({
  approvalId: ApprovalIdSchema,
  stepId: z.string().min(1),
  request: ApprovalRequestSchema,
  status: ApprovalStatusSchema,
  requestedAt: z.iso.datetime(),
  /** The workflow's callback endpoint; the approval function sends the decision there. */
  callbackUrl: z.url().max(2_000),
  /** Who decided; absent while pending and for a timeout. */
  decidedBy: SlackUserSchema.optional(),
  decidedAt: z.iso.datetime().optional(),
  /** What the approved call did, once the responder ran it. */
  result: z.object({ ok: z.boolean(), summary: z.string().max(1_000), ranAt: z.iso.datetime() }).optional(),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecordSchema>;

/** At most this many acting calls may wait on people per investigation; more are left held. */
export const MAX_APPROVALS_PER_INVESTIGATION = 10;

/** Deterministic per step and exact call: a retried step or workflow asks once. */
export function approvalIdFor(investigationId: string, stepId: string, argsDigest: string): string {
  const digest = createHash("sha256").update(`${investigationId}\n${stepId}\n${argsDigest}`).digest("hex");
  return `apr-${digest.slice(0, 24)}`;
}

/** The step's held calls, one per distinct call (a model that asks twice asks once). */
export function heldCalls(result: Pick<StepResult, "toolCalls" | "stepId">, investigationId: string) {
  const seen = new Map<string, { approvalId: string; tool: string }>();
  for (const call of result.toolCalls) {
    const request = call.approvalRequest;
    if (!request) continue;
    const approvalId = approvalIdFor(investigationId, result.stepId, request.argsDigest);
    if (!seen.has(approvalId)) seen.set(approvalId, { approvalId, tool: request.tool });
  }
  return [...seen.values()];
}

/** The decision the tool layer checks (domain/approval.ts), for a decided record. */
export function approvalOf(record: ApprovalRecord): Approval | undefined {
  if (record.status === "pending" || !record.decidedAt) return undefined;
  return {
    investigationId: record.request.investigationId,
    tool: record.request.tool,
    argsDigest: record.request.argsDigest,
    decision: record.status,
    decidedBy: record.decidedBy?.id ?? "timeout",
    decidedAt: record.decidedAt,
  };
}

/** Who approved what, as the conclusion keeps it. */
export const ApprovalOutcomeSchema = z.object({
  approvalId: ApprovalIdSchema,
  stepId: z.string().min(1),
  tool: z.string().min(1).max(64),
  argsDigest: z.string().regex(/^[0-9a-f]{64}$/),
  outcome: z.enum(["ran", "failed", "denied", "timed_out", "pending"]),
  decidedBy: SlackUserSchema.optional(),
  decidedAt: z.iso.datetime().optional(),
  summary: z.string().max(1_000).optional(),
});
export type ApprovalOutcome = z.infer<typeof ApprovalOutcomeSchema>;

export function approvalOutcome(record: ApprovalRecord): ApprovalOutcome {
  const outcome: ApprovalOutcome["outcome"] =
    record.status === "approved"
      ? record.result
        ? record.result.ok
          ? "ran"
          : "failed"
        : "pending"
      : record.status;
  return {
    approvalId: record.approvalId,
    stepId: record.stepId,
    tool: record.request.tool,
    argsDigest: record.request.argsDigest,
    outcome,
    ...(record.decidedBy ? { decidedBy: record.decidedBy } : {}),
    ...(record.decidedAt ? { decidedAt: record.decidedAt } : {}),
    ...(record.result ? { summary: record.result.summary } : {}),
  };
}

/** One sentence per outcome, for the conclusion's open questions: what did not run, and why. */
export function notRunNote(o: ApprovalOutcome): string | undefined {
  if (o.outcome === "denied")
    return `${o.tool} (step ${o.stepId}) was not run: ${o.decidedBy?.id ?? "an approver"} denied it at ${o.decidedAt}.`;
  if (o.outcome === "timed_out")
    return `${o.tool} (step ${o.stepId}) was not run: nobody approved it before the approval timeout.`;
  if (o.outcome === "pending")
    return `${o.tool} (step ${o.stepId}) was approved but did not run before the investigation ended.`;
  return undefined;
}

/**
 * The conclusion with who approved what, and a line for each call that did not run and why.
 * Written in code after the concluder answered: a model never reports on approvals.
 */
export function withApprovalOutcomes<C extends { openQuestions: string[] }>(
  conclusion: C,
  records: readonly ApprovalRecord[] | undefined,
): C & { approvals?: ApprovalOutcome[] } {
  if (!records || records.length === 0) return conclusion;
  const approvals = records.map(approvalOutcome);
  const notes = approvals.flatMap((o) => notRunNote(o) ?? []);
  return {
    ...conclusion,
    approvals,
    openQuestions: [...notes, ...conclusion.openQuestions].slice(0, 10),
  };
}

import { createHash } from "node:crypto";
import { z } from "zod";
import { ApprovalIdSchema } from "./approval-record.js";
import { VerdictSchema } from "./conclusion.js";

/**
 * What an analyst did about an investigation from Slack. Decisions are stored next to
 * ferret's conclusion, never over it: the two verdicts are compared by `ferret report` and a
 * disputed one becomes a lesson for later planners.
 */

export const SlackUserIdSchema = z.string().regex(/^[UW][A-Z0-9]{2,}$/);
/**
 * A web console user: `console:` + the email from the verified Identity-Aware Proxy token
 * (functions/src/console/identity.ts). Slack renders it as text, never as a mention.
 */
export const ConsoleUserIdSchema = z.string().regex(/^console:[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}$/);
/** Who acted: a Slack user (buttons) or a console user (the web console's forms). */
export const ActorIdSchema = z.union([SlackUserIdSchema, ConsoleUserIdSchema]);

export const AnalystActionKindSchema = z.enum([
  "confirm",
  "dispute",
  "scc_mute",
  "scc_inactive",
  "reinvestigate",
]);
export type AnalystActionKind = z.infer<typeof AnalystActionKindSchema>;

/** The free-text reason is the analyst's; it is untrusted text wherever it is shown or reused. */
export const DisputeReasonSchema = z.string().trim().min(3).max(1_000);

/** One click (or modal submission) as published on `analyst-actions`. */
export const AnalystActionSchema = z
  .object({
    /** Deterministic per action, so a double click or a redelivery is the same action. */
    actionId: z.string().regex(/^act-[a-f0-9]{24}$/),
    kind: AnalystActionKindSchema,
    investigationId: z.string().regex(/^inv-[a-f0-9]{24}$/),
    user: z.object({ id: ActorIdSchema, name: z.string().max(80).optional() }),
    /** The analyst's verdict (dispute only). */
    verdict: VerdictSchema.optional(),
    reason: DisputeReasonSchema.optional(),
    at: z.iso.datetime(),
  })
  .superRefine((a, ctx) => {
    if (a.kind === "dispute" && (!a.verdict || !a.reason)) {
      ctx.addIssue({ code: "custom", message: "a dispute needs a verdict and a reason" });
    }
  });
export type AnalystAction = z.infer<typeof AnalystActionSchema>;

/** An Approve or Deny click on a held acting call, as published on `analyst-actions` (kind "approval"). */
export const ApprovalClickSchema = z.object({
  kind: z.literal("approval"),
  decision: z.enum(["approve", "deny"]),
  investigationId: z.string().regex(/^inv-[a-f0-9]{24}$/),
  approvalId: ApprovalIdSchema,
  user: z.object({ id: SlackUserIdSchema, name: z.string().max(80).optional() }),
  at: z.iso.datetime(),
});
export type ApprovalClick = z.infer<typeof ApprovalClickSchema>;

export const AnalystDecisionSchema = z.object({
  actionId: z.string(),
  kind: AnalystActionKindSchema,
  by: z.object({ id: ActorIdSchema, name: z.string().max(80).optional() }),
  /** ferret's verdict at the time of the decision, so later changes cannot rewrite history. */
  ferretVerdict: VerdictSchema.optional(),
  /** The analyst's verdict: ferret's for a confirmation, the chosen one for a dispute. */
  verdict: VerdictSchema.optional(),
  reason: z.string().max(1_000).optional(),
  at: z.iso.datetime(),
});
export type AnalystDecision = z.infer<typeof AnalystDecisionSchema>;

/**
 * Same investigation, same kind, same person, same content → same id. Two clicks on Confirm
 * are one confirmation; a dispute with another verdict or reason is a new decision.
 */
export function analystActionId(parts: {
  investigationId: string;
  kind: AnalystActionKind;
  userId: string;
  verdict?: string;
  reason?: string;
}): string {
  const digest = createHash("sha256")
    .update(
      [parts.investigationId, parts.kind, parts.userId, parts.verdict ?? "", parts.reason?.trim() ?? ""].join(
        "\n",
      ),
    )
    .digest("hex");
  return `act-${digest.slice(0, 24)}`;
}

/** The decision that stands: the latest verdict-bearing one (confirm or dispute). */
export function currentDecision(
  decisions: readonly AnalystDecision[] | undefined,
): AnalystDecision | undefined {
  return [...(decisions ?? [])]
    .filter((d) => d.kind === "confirm" || d.kind === "dispute")
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
    .at(-1);
}

import { z } from "zod";
import { type AnalystActionKind, DisputeReasonSchema } from "../domain/analyst.js";
import { VerdictSchema } from "../domain/conclusion.js";
import { InvalidInputError } from "../domain/errors.js";
import { ACTION_IDS, APPROVAL_ACTION_IDS, DISPUTE_VIEW } from "../notify/interactive.js";

/**
 * The parts of Slack's interaction and Events API payloads ferret reads
 * (https://api.slack.com/reference/interaction-payloads). Everything else Slack sends is
 * ignored (zod strips it); anything missing is a malformed request.
 */

const UserSchema = z.object({
  id: z.string().regex(/^[UW][A-Z0-9]{2,}$/),
  username: z.string().max(80).optional(),
  name: z.string().max(80).optional(),
});

const InvestigationIdSchema = z.string().regex(/^inv-[a-f0-9]{24}$/);

export const BlockActionsSchema = z.object({
  type: z.literal("block_actions"),
  user: UserSchema,
  trigger_id: z.string().min(1).max(200),
  actions: z
    .array(z.object({ action_id: z.string().max(255), value: z.string().max(2_000).optional() }))
    .min(1)
    .max(25),
});

export const ViewSubmissionSchema = z.object({
  type: z.literal("view_submission"),
  user: UserSchema,
  view: z.object({
    callback_id: z.string().max(255),
    private_metadata: z.string().max(3_000),
    state: z.object({
      values: z.record(z.string(), z.record(z.string(), z.object({}).loose())),
    }),
  }),
});

export const InteractionSchema = z.discriminatedUnion("type", [BlockActionsSchema, ViewSubmissionSchema]);
export type Interaction = z.infer<typeof InteractionSchema>;

export const EventsApiSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("url_verification"), challenge: z.string().min(1).max(200) }),
  z.object({
    type: z.literal("event_callback"),
    event_id: z.string().regex(/^Ev[A-Za-z0-9]{4,60}$/),
    event: z.object({}).loose(),
  }),
]);
export type EventsApiPayload = z.infer<typeof EventsApiSchema>;

/**
 * An `app_mention` (https://api.slack.com/events/app_mention). Only mentions inside a thread
 * are questions about an investigation; `bot_id` marks a message an app wrote (ferret's own
 * replies must never start another answer).
 */
export const AppMentionSchema = z.object({
  type: z.literal("app_mention"),
  user: z.string().regex(/^[UW][A-Z0-9]{2,}$/),
  text: z.string().max(40_000),
  ts: z.string().regex(/^\d{1,12}\.\d{1,8}$/),
  channel: z.string().regex(/^[CDG][A-Z0-9]{2,}$/),
  thread_ts: z
    .string()
    .regex(/^\d{1,12}\.\d{1,8}$/)
    .optional(),
  bot_id: z.string().max(40).optional(),
});
export type AppMention = z.infer<typeof AppMentionSchema>;

/** The event inside an `event_callback`: an app mention ferret handles, or something it ignores. */
export function appMentionOf(event: Record<string, unknown>): AppMention | undefined {
  if (event.type !== "app_mention") return undefined;
  return firstIssue(AppMentionSchema.safeParse(event), "app_mention event");
}

/** The question without the mentions of ferret (or anyone): `<@U123> what about 1.2.3.4?` → `what about 1.2.3.4?` */
export function questionText(text: string): string {
  return text
    .replace(/<@[UW][A-Z0-9]{2,}(\|[^>]*)?>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** `payload=<json>` from an interaction's form body. */
export function parseInteraction(formBody: string): Interaction {
  const payload = new URLSearchParams(formBody).get("payload");
  if (!payload) throw new InvalidInputError("the interaction has no payload field");
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    throw new InvalidInputError("the interaction payload is not JSON");
  }
  return firstIssue(InteractionSchema.safeParse(json), "interaction");
}

export function parseEventsApi(body: string): EventsApiPayload {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new InvalidInputError("the event body is not JSON");
  }
  return firstIssue(EventsApiSchema.safeParse(json), "event");
}

function firstIssue<T>(result: z.ZodSafeParseResult<T>, what: string): T {
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new InvalidInputError(
    `not a Slack ${what} ferret handles: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid"}`,
  );
}

const KIND_BY_ACTION_ID = new Map<string, AnalystActionKind>(
  Object.entries(ACTION_IDS).map(([kind, id]) => [id, kind as AnalystActionKind]),
);

/** The first of ferret's buttons among the clicked actions, with the investigation it names. */
export function clickedButton(payload: z.infer<typeof BlockActionsSchema>): {
  kind: AnalystActionKind;
  investigationId: string;
} {
  for (const action of payload.actions) {
    const kind = KIND_BY_ACTION_ID.get(action.action_id);
    if (!kind) continue;
    const id = InvestigationIdSchema.safeParse(action.value);
    if (!id.success)
      throw new InvalidInputError(`button ${action.action_id} does not carry an investigation id`);
    return { kind, investigationId: id.data };
  }
  throw new InvalidInputError("none of the clicked actions is one of ferret's buttons");
}

export interface DisputeSubmission {
  investigationId: string;
  verdict: z.infer<typeof VerdictSchema>;
  reason: string;
}

/** The dispute modal's answers, or per-field errors in the shape `response_action: errors` wants. */
export function disputeSubmission(
  payload: z.infer<typeof ViewSubmissionSchema>,
): { ok: true; value: DisputeSubmission } | { ok: false; errors: Record<string, string> } {
  if (payload.view.callback_id !== DISPUTE_VIEW.callbackId) {
    throw new InvalidInputError(`unknown view ${payload.view.callback_id}`);
  }
  const id = InvestigationIdSchema.safeParse(payload.view.private_metadata);
  if (!id.success) throw new InvalidInputError("the dispute view does not carry an investigation id");
  const values = payload.view.state.values;
  const selected = values[DISPUTE_VIEW.verdictBlock]?.[DISPUTE_VIEW.verdictAction]?.selected_option;
  const verdict = VerdictSchema.safeParse(
    selected && typeof selected === "object" ? Reflect.get(selected, "value") : undefined,
  );
  const reason = DisputeReasonSchema.safeParse(
    values[DISPUTE_VIEW.reasonBlock]?.[DISPUTE_VIEW.reasonAction]?.value,
  );
  const errors: Record<string, string> = {};
  if (!verdict.success) errors[DISPUTE_VIEW.verdictBlock] = "Pick the verdict you believe is right.";
  if (!reason.success) errors[DISPUTE_VIEW.reasonBlock] = "Say why in 3 to 1000 characters.";
  if (!verdict.success || !reason.success) return { ok: false, errors };
  return { ok: true, value: { investigationId: id.data, verdict: verdict.data, reason: reason.data } };
}

/**
 * An Approve / Deny button among the clicked actions, with the approval it names
 * (`<investigation id>/<approval id>`, notify/render-approval.ts), or undefined for other buttons.
 */
export function clickedApproval(
  payload: z.infer<typeof BlockActionsSchema>,
): { decision: "approve" | "deny"; investigationId: string; approvalId: string } | undefined {
  for (const action of payload.actions) {
    const decision =
      action.action_id === APPROVAL_ACTION_IDS.approve
        ? "approve"
        : action.action_id === APPROVAL_ACTION_IDS.deny
          ? "deny"
          : undefined;
    if (!decision) continue;
    const ids = /^(inv-[a-f0-9]{24})\/(apr-[a-f0-9]{24})$/.exec(action.value ?? "");
    if (!ids?.[1] || !ids[2])
      throw new InvalidInputError(`button ${action.action_id} does not carry an approval reference`);
    return { decision, investigationId: ids[1], approvalId: ids[2] };
  }
  return undefined;
}

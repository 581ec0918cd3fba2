import type { Request, Response } from "@google-cloud/functions-framework";
import type { AnalystAccess } from "../app/analyst-access.js";
import {
  type AnalystAction,
  type AnalystActionKind,
  type ApprovalClick,
  analystActionId,
} from "../domain/analyst.js";
import type { Verdict } from "../domain/conclusion.js";
import { errorMessage, FerretError, InvalidInputError } from "../domain/errors.js";
import type { JsonObject } from "../domain/json.js";
import type { ThreadQuestion } from "../domain/thread-question.js";
import { disputeModal } from "../notify/interactive.js";
import type { Logger } from "../platform/logger.js";
import { ANALYST_TOPICS } from "../platform/topics.js";
import type { ChatInteractions } from "../ports/chat-sink.js";
import type { EventBus } from "../ports/event-bus.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import {
  appMentionOf,
  clickedApproval,
  clickedButton,
  disputeSubmission,
  type Interaction,
  parseEventsApi,
  parseInteraction,
  questionText,
} from "./slack-payloads.js";
import { checkSlackSignature } from "./slack-signature.js";

export interface SlackEventsDeps {
  signingSecret: string | undefined;
  maxAgeSeconds: number;
  access: AnalystAccess;
  /** slack.approvers: who may Approve or Deny an acting call (nobody when empty). */
  approvers?: readonly string[];
  /** Opens the dispute modal; absent without a bot token (then Dispute cannot work). */
  interactions: ChatInteractions | undefined;
  bus: EventBus;
  store: Pick<InvestigationStore, "get">;
  logger: Logger;
  now: () => Date;
}

type Answer = { status: number; body?: JsonObject };

/**
 * Slack's interactions and Events API endpoint. It only checks and hands over: signature and
 * replay window, allowlist, payload shape; then one Pub/Sub publish (or, for Dispute, opening
 * the modal, whose trigger expires in 3 s). The work happens in the analystActions worker, so
 * the answer stays well inside Slack's 3-second limit.
 */
export function slackEventsHandler(deps: () => Promise<SlackEventsDeps>) {
  return async (req: Request, res: Response): Promise<void> => {
    const answer = await handle(req, deps).catch((error: unknown): Answer => {
      if (error instanceof FerretError && !error.retryable) {
        return { status: 400, body: { error: error.code, message: error.message } };
      }
      // Slack shows the click as failed; the analyst can click again.
      return { status: 503, body: { error: "unavailable", message: errorMessage(error) } };
    });
    if (answer.body) res.status(answer.status).json(answer.body);
    else res.status(answer.status).send("");
  };
}

async function handle(req: Request, getDeps: () => Promise<SlackEventsDeps>): Promise<Answer> {
  if (req.method !== "POST") return { status: 405, body: { error: "method_not_allowed" } };
  const d = await getDeps();
  const raw = Buffer.isBuffer(req.rawBody) ? req.rawBody.toString("utf8") : undefined;
  if (raw === undefined) return { status: 400, body: { error: "no_body" } };
  const signature = checkSlackSignature({
    signingSecret: d.signingSecret,
    body: raw,
    signature: header(req, "x-slack-signature"),
    timestamp: header(req, "x-slack-request-timestamp"),
    now: d.now(),
    maxAgeSeconds: d.maxAgeSeconds,
  });
  if (!signature.ok) {
    d.logger.warn("Slack request refused", { why: signature.why });
    return { status: 401, body: { error: "invalid_signature" } };
  }
  const contentType = header(req, "content-type") ?? "";
  if (contentType.includes("application/json")) return await events(raw, d);
  if (!contentType.includes("application/x-www-form-urlencoded")) {
    throw new InvalidInputError(`unexpected content type ${contentType.slice(0, 80)}`);
  }
  const interaction = parseInteraction(raw);
  // Approve / Deny have an allowlist of their own: approving an action is not judging a verdict.
  const approval = interaction.type === "block_actions" ? clickedApproval(interaction) : undefined;
  if (approval && interaction.type === "block_actions") return approvalClick(interaction, approval, d);
  if (!(await d.access.allows(interaction.user.id))) {
    d.logger.warn("Slack user is not allowed to act on verdicts", { user: interaction.user.id });
    return refuse(interaction);
  }
  return interaction.type === "block_actions" ? click(interaction, d) : submission(interaction, d);
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Events API: the URL check when the app is configured, and mentions of ferret in a thread,
 * which become questions for the worker. Everything else is acknowledged and dropped, so
 * Slack does not retry it. Slack retries an event it got no 200 for with the same event_id;
 * the worker answers once per event_id.
 */
async function events(raw: string, d: SlackEventsDeps): Promise<Answer> {
  const payload = parseEventsApi(raw);
  if (payload.type === "url_verification") return { status: 200, body: { challenge: payload.challenge } };
  const mention = appMentionOf(payload.event);
  if (!mention) {
    d.logger.info("Slack event acknowledged, not handled", { eventId: payload.event_id });
    return { status: 200 };
  }
  if (mention.bot_id) return { status: 200 };
  if (!mention.thread_ts || mention.thread_ts === mention.ts) {
    d.logger.info("mention outside a thread ignored: questions belong in an investigation's thread", {
      eventId: payload.event_id,
    });
    return { status: 200 };
  }
  if (!(await d.access.allows(mention.user))) {
    d.logger.warn("Slack user is not allowed to ask ferret", {
      user: mention.user,
      eventId: payload.event_id,
    });
    return { status: 200 };
  }
  const text = questionText(mention.text);
  if (!text) return { status: 200 };
  const question: ThreadQuestion = {
    kind: "question",
    eventId: payload.event_id,
    channel: mention.channel,
    threadTs: mention.thread_ts,
    questionTs: mention.ts,
    user: { id: mention.user },
    text: text.slice(0, QUESTION_MAX_CHARS),
    at: d.now().toISOString(),
  };
  await d.bus.publish(ANALYST_TOPICS.analystActions, question, {
    kind: "question",
    eventId: payload.event_id,
  });
  d.logger.info("thread question accepted", { eventId: payload.event_id, user: mention.user });
  return { status: 200 };
}

/** Longer questions are cut: the answer prompt has room for a question, not an essay. */
const QUESTION_MAX_CHARS = 3_000;

/** A refused modal shows the reason in the form; a refused click is acknowledged and dropped. */
function refuse(interaction: Interaction): Answer {
  if (interaction.type === "view_submission") {
    return {
      status: 200,
      body: {
        response_action: "errors",
        errors: { reason: "You are not on ferret's list of analysts; ask the operator to add you." },
      },
    };
  }
  return { status: 200 };
}

async function click(
  interaction: Extract<Interaction, { type: "block_actions" }>,
  d: SlackEventsDeps,
): Promise<Answer> {
  const { kind, investigationId } = clickedButton(interaction);
  if (kind === "dispute") {
    if (!d.interactions) throw new InvalidInputError("disputes need a Slack bot token to open the modal");
    const investigation = await d.store.get(investigationId);
    await d.interactions.openView(
      interaction.trigger_id,
      disputeModal(investigationId, investigation?.conclusion?.verdict),
    );
    return { status: 200 };
  }
  await publish(d, kind, investigationId, interaction.user);
  return { status: 200 };
}

async function submission(
  interaction: Extract<Interaction, { type: "view_submission" }>,
  d: SlackEventsDeps,
): Promise<Answer> {
  const parsed = disputeSubmission(interaction);
  if (!parsed.ok) return { status: 200, body: { response_action: "errors", errors: parsed.errors } };
  const { investigationId, verdict, reason } = parsed.value;
  await publish(d, "dispute", investigationId, interaction.user, { verdict, reason });
  return { status: 200 }; // an empty 200 closes the modal
}

async function publish(
  d: SlackEventsDeps,
  kind: AnalystActionKind,
  investigationId: string,
  user: Interaction["user"],
  dispute?: { verdict: Verdict; reason: string },
): Promise<void> {
  const action: AnalystAction = {
    actionId: analystActionId({ investigationId, kind, userId: user.id, ...dispute }),
    kind,
    investigationId,
    user: { id: user.id, ...(user.username || user.name ? { name: user.username ?? user.name } : {}) },
    ...dispute,
    at: d.now().toISOString(),
  };
  await d.bus.publish(ANALYST_TOPICS.analystActions, action, {
    kind,
    investigationId,
  });
  d.logger.info("analyst action accepted", {
    kind,
    investigationId,
    actionId: action.actionId,
    user: user.id,
  });
}

/**
 * Approve / Deny: refused (acknowledged, nothing published) unless the user is an approver;
 * the worker checks again and decides in a transaction, so the first decision wins.
 */
async function approvalClick(
  interaction: Extract<Interaction, { type: "block_actions" }>,
  approval: NonNullable<ReturnType<typeof clickedApproval>>,
  d: SlackEventsDeps,
): Promise<Answer> {
  const user = interaction.user;
  if (!(d.approvers ?? []).includes(user.id)) {
    d.logger.warn("Slack user is not an approver; approval click refused", {
      user: user.id,
      approvalId: approval.approvalId,
    });
    return { status: 200 };
  }
  const click: ApprovalClick = {
    kind: "approval",
    ...approval,
    user: { id: user.id, ...(user.username || user.name ? { name: user.username ?? user.name } : {}) },
    at: d.now().toISOString(),
  };
  await d.bus.publish(ANALYST_TOPICS.analystActions, click, {
    kind: "approval",
    investigationId: approval.investigationId,
  });
  d.logger.info("approval click accepted", { ...approval, user: user.id });
  return { status: 200 };
}

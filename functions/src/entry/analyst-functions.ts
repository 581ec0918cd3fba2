import type { CloudEvent } from "@google-cloud/functions-framework";
import { AnalystAccess } from "../app/analyst-access.js";
import { ApprovalClickSchema, handleApprovalClick } from "../app/approval-decision.js";
import { handleReinvestigate } from "../app/reinvestigate.js";
import { handleAnalystAction } from "../app/slack-actions.js";
import { handleThreadQuestion } from "../app/thread-question.js";
import { AnalystActionSchema } from "../domain/analyst.js";
import { InvalidInputError } from "../domain/errors.js";
import { ThreadQuestionSchema } from "../domain/thread-question.js";
import { ANALYST_TOPICS } from "../platform/topics.js";
import { decodePubSubJson } from "./pubsub-message.js";
import { settle } from "./pubsub-settle.js";
import { appDepsFor, type Runtime } from "./runtime.js";
import { type SlackEventsDeps, slackEventsHandler } from "./slack-events.js";

/** Questions and clicks share the analyst-actions topic; a question says so in `kind`. */
function isQuestion(json: unknown): boolean {
  return isKind(json, "question");
}

function isKind(json: unknown, kind: string): boolean {
  return typeof json === "object" && json !== null && (json as { kind?: unknown }).kind === kind;
}

function notA(what: string, issue: { path: PropertyKey[]; message: string } | undefined): InvalidInputError {
  return new InvalidInputError(
    `not a ${what}: ${issue ? `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}` : "invalid"}`,
  );
}

/** The interactions endpoint's collaborators; the access cache lives as long as the instance. */
export function slackEventsFunction(runtime: () => Promise<Runtime>) {
  let access: AnalystAccess | undefined;
  return slackEventsHandler(async (): Promise<SlackEventsDeps> => {
    const rt = await runtime();
    access ??= new AnalystAccess(rt.config.slack, rt.chatInteractions, rt.now);
    return {
      signingSecret: rt.slackSigningSecret,
      maxAgeSeconds: rt.config.slack.signatureMaxAgeSeconds,
      access,
      approvers: rt.config.slack.approvers,
      interactions: rt.chatInteractions,
      bus: rt.bus,
      store: rt.store,
      logger: rt.logger,
      now: rt.now,
    };
  });
}

/**
 * The worker behind the buttons and the thread questions: one action or question per
 * message, safe to redeliver.
 */
export function analystActionsFunction(runtime: () => Promise<Runtime>) {
  return async (event: CloudEvent<unknown>): Promise<void> => {
    const rt = await runtime();
    await settle(rt, ANALYST_TOPICS.analystActions, event, async () => {
      const { json, messageId } = decodePubSubJson(event.data);
      if (isKind(json, "approval")) {
        const click = ApprovalClickSchema.safeParse(json);
        if (!click.success) throw notA("approval click", click.error.issues[0]);
        const outcome = await handleApprovalClick(click.data, {
          config: rt.config,
          store: rt.store,
          bus: rt.bus,
          sink: rt.chat,
          ...(rt.workflowCallbacks ? { callbacks: rt.workflowCallbacks } : {}),
          logger: rt.logger,
        });
        rt.logger.info("approval click done", { messageId, ...outcome });
        return;
      }
      if (isQuestion(json)) {
        const question = ThreadQuestionSchema.safeParse(json);
        if (!question.success) throw notA("thread question", question.error.issues[0]);
        const outcome = await handleThreadQuestion(question.data, {
          config: rt.config,
          store: rt.store,
          sink: rt.chat,
          brains: async (investigationId) => appDepsFor(rt, await rt.store.get(investigationId)),
          logger: rt.logger,
        });
        rt.logger.info("thread question done", { messageId, ...outcome });
        return;
      }
      const parsed = AnalystActionSchema.safeParse(json);
      if (!parsed.success) throw notA("analyst action", parsed.error.issues[0]);
      if (parsed.data.kind === "reinvestigate") {
        const outcome = await handleReinvestigate(parsed.data, {
          config: rt.config,
          store: rt.store,
          sink: rt.chat,
          bus: rt.bus,
          launcher: rt.launcher,
          logger: rt.logger.child({ investigationId: parsed.data.investigationId }),
          now: rt.now,
          modelName: rt.primaryModel.name,
        });
        rt.logger.info("analyst action done", { messageId, kind: parsed.data.kind, ...outcome });
        return;
      }
      const outcome = await handleAnalystAction(parsed.data, {
        config: rt.config,
        store: rt.store,
        sink: rt.chat,
        ...(rt.scc ? { scc: rt.scc } : {}),
        ...(rt.lessons ? { lessons: rt.lessons } : {}),
        logger: rt.logger.child({ investigationId: parsed.data.investigationId }),
        now: rt.now,
      });
      rt.logger.info("analyst action done", { messageId, kind: parsed.data.kind, ...outcome });
    });
  };
}

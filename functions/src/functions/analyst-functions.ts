import type { CloudEvent } from "@google-cloud/functions-framework";
import { AnalystAccess } from "../app/analyst-access.js";
import { handleAnalystAction } from "../app/slack-actions.js";
import { AnalystActionSchema } from "../domain/analyst.js";
import { InvalidInputError } from "../domain/errors.js";
import { ANALYST_TOPICS } from "../platform/topics.js";
import { settle } from "./event-functions.js";
import { decodePubSubJson } from "./pubsub-message.js";
import type { Runtime } from "./runtime.js";
import { type SlackEventsDeps, slackEventsHandler } from "./slack-events.js";

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
      interactions: rt.chatInteractions,
      bus: rt.bus,
      store: rt.store,
      logger: rt.logger,
      now: rt.now,
    };
  });
}

/** The worker behind the buttons: one analyst action per message, safe to redeliver. */
export function analystActionsFunction(runtime: () => Promise<Runtime>) {
  return async (event: CloudEvent<unknown>): Promise<void> => {
    const rt = await runtime();
    await settle(rt, ANALYST_TOPICS.analystActions, event, async () => {
      const { json, messageId } = decodePubSubJson(event.data);
      const parsed = AnalystActionSchema.safeParse(json);
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        throw new InvalidInputError(
          `not an analyst action: ${first ? `${first.path.join(".") || "(root)"}: ${first.message}` : "invalid"}`,
        );
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

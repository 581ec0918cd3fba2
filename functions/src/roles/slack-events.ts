import { AnalystAccess } from "../app/analyst-access.js";
import { slackEventsHandler } from "../entry/slack-events.js";
import { slackRoleDefinition } from "./role.js";

/**
 * The interactions and events endpoint: the one function Slack calls directly, public and
 * authenticated by Slack's request signature (docs/decisions/0018). It checks who clicked,
 * opens the dispute modal and hands each click or thread question to `analyst-actions`
 * within Slack's 3 s (entry/slack-events.ts).
 */
export const slackEvents = slackRoleDefinition({
  name: "slackEvents",
  needs: { tools: false, chat: true },
  handler: (runtime) => {
    // Who may act, cached for as long as the instance lives.
    let access: AnalystAccess | undefined;
    return slackEventsHandler(async () => {
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
  },
});

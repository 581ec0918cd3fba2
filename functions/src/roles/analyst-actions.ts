import { z } from "zod";
import { handleApprovalClick } from "../app/approval-decision.js";
import { handleReinvestigate } from "../app/reinvestigate.js";
import { handleAnalystAction } from "../app/slack-actions.js";
import { handleThreadQuestion } from "../app/thread-question.js";
import { AnalystActionSchema, ApprovalClickSchema } from "../domain/analyst.js";
import { ThreadQuestionSchema } from "../domain/thread-question.js";
import { pubsubRoleDefinition } from "./role.js";

/**
 * The worker behind the buttons and the thread questions, fed by `analyst-actions`: one
 * click, approval decision or question per message, safe to redeliver. A re-investigation
 * may start model work in-process, so it has the full runtime.
 */
export const analystActions = pubsubRoleDefinition({
  name: "analystActions",
  needs: { tools: true, chat: true },
  // Clicks, approval decisions and questions share the topic; `kind` tells them apart.
  message: z.discriminatedUnion("kind", [ApprovalClickSchema, ThreadQuestionSchema, AnalystActionSchema]),
  what: "an analyst action, approval click or thread question",
  run: async (message, { runtime: rt, messageId, appDepsFor }) => {
    if (message.kind === "approval") {
      const outcome = await handleApprovalClick(message, {
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
    if (message.kind === "question") {
      const outcome = await handleThreadQuestion(message, {
        config: rt.config,
        store: rt.store,
        sink: rt.chat,
        brains: appDepsFor,
        logger: rt.logger,
      });
      rt.logger.info("thread question done", { messageId, ...outcome });
      return;
    }
    const logger = rt.logger.child({ investigationId: message.investigationId });
    const outcome =
      message.kind === "reinvestigate"
        ? await handleReinvestigate(message, {
            config: rt.config,
            store: rt.store,
            sink: rt.chat,
            bus: rt.bus,
            launcher: rt.launcher,
            logger,
            now: rt.now,
            modelName: rt.primaryModel.name,
          })
        : await handleAnalystAction(message, {
            config: rt.config,
            store: rt.store,
            sink: rt.chat,
            ...(rt.scc ? { scc: rt.scc } : {}),
            ...(rt.lessons ? { lessons: rt.lessons } : {}),
            logger,
            now: rt.now,
          });
    rt.logger.info("analyst action done", { messageId, kind: message.kind, ...outcome });
  },
});

import { z } from "zod";
import { AnalystActionSchema, ApprovalClickSchema } from "../domain/analyst.js";
import { ThreadQuestionSchema } from "../domain/thread-question.js";
import { TOPICS } from "../platform/topics.js";
import { pubsubRole } from "./role.js";

/**
 * The worker behind the buttons and the thread questions, fed by `analyst-actions`: one
 * click, approval decision or question per message, safe to redeliver. A re-investigation
 * may start model work in-process, so it has the full runtime.
 */
export const analystActions = pubsubRole({
  name: "analystActions",
  topic: TOPICS.analystActions,
  needs: { tools: true, chat: true },
  // Clicks, approval decisions and questions share the topic; `kind` tells them apart.
  message: z.discriminatedUnion("kind", [ApprovalClickSchema, ThreadQuestionSchema, AnalystActionSchema]),
  what: "an analyst action, approval click or thread question",
  load: async () => {
    const [
      { handleApprovalClick },
      { handleThreadQuestion },
      { handleReinvestigate },
      { handleAnalystAction },
    ] = await Promise.all([
      import("../app/approval-decision.js"),
      import("../app/thread-question.js"),
      import("../app/reinvestigate.js"),
      import("../app/slack-actions.js"),
    ]);
    return { handleApprovalClick, handleThreadQuestion, handleReinvestigate, handleAnalystAction };
  },
  run: async (code, message, { runtime: rt, messageId, appDepsFor }) => {
    if (message.kind === "approval") {
      const outcome = await code.handleApprovalClick(message, {
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
      const outcome = await code.handleThreadQuestion(message, {
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
        ? await code.handleReinvestigate(message, {
            config: rt.config,
            store: rt.store,
            sink: rt.chat,
            bus: rt.bus,
            launcher: rt.launcher,
            logger,
            now: rt.now,
            modelName: rt.primaryModel.name,
          })
        : await code.handleAnalystAction(message, {
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

import { autoCloseIfAllowed } from "../app/auto-close.js";
import { announceFinished } from "../app/governor.js";
import { InvestigationEventSchema } from "../domain/investigation.js";
import { handleInvestigationEvent } from "../notify/notifier.js";
import { pubsubRoleDefinition } from "./role.js";

const FINISHED: ReadonlySet<string> = new Set(["concluded", "needs_human", "failed"]);

/**
 * Renders every investigation event into the investigation's Slack thread (notify/notifier.ts);
 * a finished investigation frees its governor slot, and a concluded one may close its SCC
 * finding (app/auto-close.ts).
 */
export const notifier = pubsubRoleDefinition({
  name: "notifier",
  needs: { tools: false, chat: true },
  message: InvestigationEventSchema,
  what: "an investigation event",
  run: async (event, { runtime: rt }) => {
    // Before Slack, so a Slack outage does not hold the queue: the sweep function frees the
    // slot and starts the next queued finding on this request.
    if (FINISHED.has(event.type) && rt.governor) await announceFinished(rt.bus, event.investigationId);
    await handleInvestigationEvent(event, {
      store: rt.store,
      sink: rt.chat,
      logger: rt.logger,
      policy: { staleAfterMs: rt.config.slack.claimStaleSeconds * 1_000 },
      board: { sccButtons: rt.config.scc.writeback && rt.config.scc.analystMuteAndState },
      approvalTimeoutSeconds: rt.config.approvals.timeoutSeconds,
    });
    if (event.type === "concluded" && rt.scc && rt.config.scc.autoClose) {
      const inv = await rt.store.require(event.investigationId);
      const results = await rt.store.listStepResults(inv.id);
      await autoCloseIfAllowed(inv, results, {
        config: rt.config,
        scc: rt.scc,
        logger: rt.logger,
        now: rt.now,
      });
    }
  },
});

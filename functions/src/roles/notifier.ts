import { InvestigationEventSchema } from "../domain/investigation.js";
import { TOPICS } from "../platform/topics.js";
import { pubsubRole } from "./role.js";

const FINISHED: ReadonlySet<string> = new Set(["concluded", "needs_human", "failed"]);

/**
 * Renders every investigation event into the investigation's Slack thread (notify/notifier.ts);
 * a finished investigation frees its governor slot, and a concluded one may close its SCC
 * finding (app/auto-close.ts).
 */
export const notifier = pubsubRole({
  name: "notifier",
  topic: TOPICS.investigationEvents,
  needs: { tools: false, chat: true },
  message: InvestigationEventSchema,
  what: "an investigation event",
  load: async () => {
    const [{ autoCloseIfAllowed }, { announceFinished }, { handleInvestigationEvent }] = await Promise.all([
      import("../app/auto-close.js"),
      import("../app/governor.js"),
      import("../notify/notifier.js"),
    ]);
    return { autoCloseIfAllowed, announceFinished, handleInvestigationEvent };
  },
  run: async ({ announceFinished, autoCloseIfAllowed, handleInvestigationEvent }, event, { runtime: rt }) => {
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

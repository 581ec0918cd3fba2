import type { CloudEvent } from "@google-cloud/functions-framework";
import { autoCloseIfAllowed } from "../app/auto-close.js";
import { announceFinished } from "../app/governor.js";
import { InvalidInputError } from "../domain/errors.js";
import { InvestigationEventSchema } from "../domain/investigation.js";
import { handleInvestigationEvent } from "../notify/notifier.js";
import { TOPICS } from "../platform/topics.js";
import { decodePubSubJson } from "./pubsub-message.js";
import { settle } from "./pubsub-settle.js";
import type { Runtime } from "./runtime.js";

const FINISHED: ReadonlySet<string> = new Set(["concluded", "needs_human", "failed"]);

export function notifierFunction(runtime: () => Promise<Runtime>) {
  return async (event: CloudEvent<unknown>): Promise<void> => {
    const rt = await runtime();
    await settle(rt, TOPICS.investigationEvents, event, async () => {
      const { json } = decodePubSubJson(event.data);
      const parsed = InvestigationEventSchema.safeParse(json);
      if (!parsed.success) throw new InvalidInputError("not an investigation event");
      // Before Slack, so a Slack outage does not hold the queue: the sweep function frees the
      // slot and starts the next queued finding on this request.
      if (FINISHED.has(parsed.data.type) && rt.governor)
        await announceFinished(rt.bus, parsed.data.investigationId);
      await handleInvestigationEvent(parsed.data, {
        store: rt.store,
        sink: rt.chat,
        logger: rt.logger,
        policy: { staleAfterMs: rt.config.slack.claimStaleSeconds * 1_000 },
        board: { sccButtons: rt.config.scc.writeback && rt.config.scc.analystMuteAndState },
        approvalTimeoutSeconds: rt.config.approvals.timeoutSeconds,
      });
      if (parsed.data.type === "concluded" && rt.scc && rt.config.scc.autoClose) {
        const inv = await rt.store.require(parsed.data.investigationId);
        const results = await rt.store.listStepResults(inv.id);
        await autoCloseIfAllowed(inv, results, {
          config: rt.config,
          scc: rt.scc,
          logger: rt.logger,
          now: rt.now,
        });
      }
    });
  };
}

import { drainQueue } from "../app/governor.js";
import { launchInvestigation } from "../app/ingest.js";
import { sweepStalled } from "../app/sweep.js";
import { SweepRequestSchema } from "../app/sweep-request.js";
import { pubsubRoleDefinition } from "./role.js";

/**
 * The `sweep` function, fed by the sweep-requests topic: Cloud Scheduler's periodic request
 * (stalled investigations → needs_human, app/sweep.ts) and the notifier's request when an
 * investigation finished; both then drain the governor's queue (app/governor.ts), the one
 * place it is drained from outside ingest. The schedule is the rate limit of scheduled sweeps
 * (no claim per window): Pub/Sub may deliver a request twice, and both the sweep and the
 * drain are idempotent.
 */
export const sweep = pubsubRoleDefinition({
  name: "sweep",
  // No tools, no Slack.
  needs: { tools: false, chat: false },
  message: SweepRequestSchema,
  what: "a sweep request",
  run: async (request, { runtime, messageId, ingestDeps }) => {
    const deps = ingestDeps();
    // Without a governor there is no queue.
    const drain = async (finished?: string) => {
      if (!deps.governor) return;
      await drainQueue(
        {
          ...deps,
          governor: deps.governor,
          launch: (id, admission) => launchInvestigation(id, deps, admission),
        },
        finished ? { finished } : {},
      );
    };
    if (request.kind === "finished") {
      await drain(request.investigationId);
      return;
    }
    const report = await sweepStalled(deps);
    runtime.logger.info("scheduled sweep done", { messageId, ...report });
    // Also frees slots whose finish was never announced, and starts what waits.
    await drain();
  },
});

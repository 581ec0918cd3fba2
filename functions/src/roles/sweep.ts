import { DrainCoalescer } from "../app/drain-coalescer.js";
import { type DrainReport, drainQueue } from "../app/governor.js";
import { launchInvestigation } from "../app/ingest.js";
import { sweepStalled } from "../app/sweep.js";
import { SweepRequestSchema } from "../app/sweep-request.js";
import type { Runtime } from "../entry/runtime.js";
import { pubsubRoleDefinition } from "./role.js";

/**
 * One coalescing drainer per runtime: requests are folded into at most one drain a second per
 * process (app/drain-coalescer.ts, decision 0039).
 */
const drainers = new WeakMap<Runtime, DrainCoalescer<DrainReport>>();

/**
 * The `sweep` function, fed by the sweep-requests topic: ingest's request after queueing a
 * finding, the notifier's when an investigation finished, and Cloud Scheduler's periodic
 * request (stalled investigations → needs_human, app/sweep.ts). Each drains the governor's
 * queue (app/governor.ts); this is the one place it is drained and the one launcher of
 * workflow executions. The schedule is the rate limit of scheduled sweeps (no claim per
 * window): Pub/Sub may deliver a request twice, and both the sweep and the drain are idempotent.
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
      const governor = deps.governor;
      if (!governor) return;
      let drainer = drainers.get(runtime);
      if (!drainer) {
        drainer = new DrainCoalescer((ids) =>
          drainQueue(
            { ...deps, governor, launch: (id, admission) => launchInvestigation(id, deps, admission) },
            { finished: ids },
          ),
        );
        drainers.set(runtime, drainer);
      }
      await drainer.request(finished);
    };
    if (request.kind === "finished" || request.kind === "drain") {
      await drain(request.kind === "finished" ? request.investigationId : undefined);
      return;
    }
    const report = await sweepStalled(deps);
    runtime.logger.info("scheduled sweep done", { messageId, ...report });
    // Also frees slots whose finish was never announced, and starts what waits.
    await drain();
  },
});

import type { CloudEvent } from "@google-cloud/functions-framework";
import { DrainCoalescer } from "../app/drain-coalescer.js";
import { type DrainReport, drainQueue } from "../app/governor.js";
import { launchInvestigation } from "../app/ingest.js";
import { sweepStalled } from "../app/sweep.js";
import { type SweepRequest, SweepRequestSchema } from "../app/sweep-request.js";
import { InvalidInputError } from "../domain/errors.js";
import { TOPICS } from "../platform/topics.js";
import { decodePubSubJson } from "./pubsub-message.js";
import { settle } from "./pubsub-settle.js";
import { ingestDepsFor, type Runtime } from "./runtime.js";

/**
 * The one place the governor's queue is drained: ingest's request after queueing, a finished
 * investigation's request, a scheduled sweep. Requests are coalesced into at most one drain a
 * second per process (app/drain-coalescer.ts). Without a governor there is no queue.
 */
const drainers = new WeakMap<Runtime, DrainCoalescer<DrainReport>>();

async function drain(rt: Runtime, finished?: string): Promise<DrainReport | undefined> {
  const deps = ingestDepsFor(rt);
  const governor = deps.governor;
  if (!governor) return undefined;
  let drainer = drainers.get(rt);
  if (!drainer) {
    drainer = new DrainCoalescer((ids) =>
      drainQueue(
        { ...deps, governor, launch: (id, admission) => launchInvestigation(id, deps, admission) },
        { finished: ids },
      ),
    );
    drainers.set(rt, drainer);
  }
  return drainer.request(finished);
}

function parseRequest(json: unknown): SweepRequest {
  const parsed = SweepRequestSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  throw new InvalidInputError(
    `not a sweep request: ${first ? `${first.path.join(".") || "(root)"}: ${first.message}` : "invalid"}`,
  );
}

/**
 * The `sweep` function, fed by the sweep-requests topic. The schedule is the rate limit of
 * scheduled sweeps (no claim per window): Pub/Sub may deliver a request twice, and both the
 * sweep and the drain are idempotent. A retryable failure is redelivered; a malformed request
 * is dead-lettered (settle).
 */
export function sweepFunction(runtime: () => Promise<Runtime>) {
  return async (event: CloudEvent<unknown>): Promise<void> => {
    const rt = await runtime();
    await settle(rt, TOPICS.sweep, event, async () => {
      const { json, messageId } = decodePubSubJson(event.data);
      const request = parseRequest(json);
      if (request.kind === "finished" || request.kind === "drain") {
        await drain(rt, request.kind === "finished" ? request.investigationId : undefined);
        return;
      }
      const report = await sweepStalled(ingestDepsFor(rt));
      rt.logger.info("scheduled sweep done", { messageId, ...report });
      // Also frees slots whose finish was never announced, and starts what waits.
      await drain(rt);
    });
  };
}

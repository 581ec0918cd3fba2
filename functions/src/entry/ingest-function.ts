import type { CloudEvent } from "@google-cloud/functions-framework";
import { ingestNotification } from "../app/ingest.js";
import { TOPICS } from "../platform/topics.js";
import { decodePubSubJson } from "./pubsub-message.js";
import { settle } from "./pubsub-settle.js";
import { ingestDepsFor, type Runtime } from "./runtime.js";

/**
 * Every message on the findings topic is an SCC notification: anything else (including a
 * message carrying the retired `ferret-task` attribute) is malformed and dead-lettered.
 * Housekeeping is the `sweep` function's (sweep-function.ts).
 */
export function ingestFunction(runtime: () => Promise<Runtime>) {
  return async (event: CloudEvent<unknown>): Promise<void> => {
    const rt = await runtime();
    await settle(rt, TOPICS.findings, event, async () => {
      const { json, messageId } = decodePubSubJson(event.data);
      const outcome = await ingestNotification(json, ingestDepsFor(rt));
      rt.logger.info("notification ingested", { messageId, ...outcome });
    });
  };
}

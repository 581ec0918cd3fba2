import type { CloudEvent } from "@google-cloud/functions-framework";
import { errorMessage, FerretError } from "../domain/errors.js";
import { redactError } from "../platform/logger.js";
import { deadLetterTopic, type TopicName } from "../platform/topics.js";
import { PubSubEventDataSchema } from "./pubsub-message.js";
import type { Runtime } from "./runtime.js";

/**
 * Pub/Sub-triggered functions. Returning acks the message; throwing nacks it and Pub/Sub
 * redelivers. Only retryable failures throw: a message that can never succeed (malformed,
 * invalid) is published to the topic's dead-letter topic with the reason and acked, so it
 * is kept for inspection and never retried forever.
 */
async function deadLetter(
  rt: Runtime,
  topic: TopicName,
  event: CloudEvent<unknown>,
  reason: string,
): Promise<void> {
  const envelope = PubSubEventDataSchema.safeParse(event.data);
  const message = envelope.success ? envelope.data.message : undefined;
  await rt.bus.publish(
    deadLetterTopic(topic) as TopicName,
    {
      reason,
      sourceTopic: topic,
      originalMessageId: message?.messageId ?? event.id ?? null,
      originalData: (message?.data ?? "").slice(0, 1_000_000),
    },
    { reason: reason.slice(0, 1_000), sourceTopic: topic },
  );
  rt.logger.error("message dead-lettered", { topic, reason, messageId: message?.messageId ?? event.id });
}

export async function settle(
  rt: Runtime,
  topic: TopicName,
  event: CloudEvent<unknown>,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof FerretError && error.retryable) {
      rt.logger.warn("retryable failure; Pub/Sub will redeliver", { topic, error: errorMessage(error) });
      throw redactError(error);
    }
    if (error instanceof FerretError) return deadLetter(rt, topic, event, `${error.code}: ${error.message}`);
    // Unexpected errors are retried: they may be transient, and Pub/Sub's own
    // max-delivery dead-lettering bounds the attempts.
    rt.logger.error("unexpected failure", { topic, error: errorMessage(error) });
    throw redactError(error);
  }
}

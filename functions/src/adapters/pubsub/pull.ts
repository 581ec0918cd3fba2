import type { Message, PubSub } from "@google-cloud/pubsub";

export interface PulledMessage {
  messageId: string;
  /** The payload as UTF-8 text (ferret publishes JSON). */
  data: string;
  attributes: Record<string, string>;
  /** Set by Pub/Sub when the subscription has a dead-letter policy. */
  deliveryAttempt: number | undefined;
  publishTime: string;
  /** The key the publisher ordered it by, if any. */
  orderingKey?: string;
}

/**
 * Reads up to `maxMessages` from a pull subscription, acknowledging them, and returns when
 * that many arrived or `timeoutMs` passed. For inspecting dead-letter subscriptions (tests,
 * the local CLI), not for serving traffic.
 */
export async function pullMessages(
  client: PubSub,
  subscriptionName: string,
  options: { maxMessages: number; timeoutMs: number },
): Promise<PulledMessage[]> {
  const subscription = client.subscription(subscriptionName, {
    flowControl: { maxMessages: options.maxMessages, allowExcessMessages: false },
  });
  const received: PulledMessage[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, options.timeoutMs);
      subscription.on("error", (error: Error) => {
        clearTimeout(timer);
        reject(error);
      });
      subscription.on("message", (message: Message) => {
        if (received.length >= options.maxMessages) {
          message.nack();
          return;
        }
        message.ack();
        received.push({
          messageId: message.id,
          data: message.data.toString("utf8"),
          attributes: { ...message.attributes },
          deliveryAttempt: message.deliveryAttempt || undefined,
          publishTime: message.publishTime.toISOString(),
          ...(message.orderingKey ? { orderingKey: message.orderingKey } : {}),
        });
        if (received.length >= options.maxMessages) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } finally {
    await subscription.close();
  }
  return received;
}

import type { Message, PubSub } from "@google-cloud/pubsub";

/** What a function published to a dead-letter topic about a message it gave up on. */
export interface DeadLetter {
  reason: string;
  originalMessageId: string | undefined;
}

export interface DeadLetterWatch {
  /** Dead letters received so far. */
  received(): readonly DeadLetter[];
  close(): Promise<void>;
}

function parse(message: Message): DeadLetter {
  let body: { reason?: unknown; originalMessageId?: unknown } = {};
  try {
    body = JSON.parse(message.data.toString("utf8")) as typeof body;
  } catch {
    // Not one of ferret's dead letters: handled below like a forwarded original.
  }
  if (typeof body?.reason === "string") {
    return {
      reason: body.reason,
      originalMessageId: typeof body.originalMessageId === "string" ? body.originalMessageId : undefined,
    };
  }
  // Pub/Sub's own max-delivery dead-lettering forwards the original message unchanged.
  return {
    reason: `Pub/Sub gave up after ${message.deliveryAttempt || "the maximum"} delivery attempts: the function kept failing (see its log)`,
    originalMessageId: message.id,
  };
}

/**
 * Listens on a dead-letter hold subscription for the life of a local run, so the CLI can
 * say at once that ingest gave up on its message, and why, instead of waiting out its
 * timeout. Messages are acknowledged: the run's stack is thrown away afterwards.
 */
export function watchDeadLetters(client: PubSub, subscriptionName: string): DeadLetterWatch {
  const subscription = client.subscription(subscriptionName);
  const letters: DeadLetter[] = [];
  subscription.on("message", (message: Message) => {
    message.ack();
    letters.push(parse(message));
  });
  // A watch that fails only loses the early warning; the run still ends on its timeout.
  subscription.on("error", () => {});
  return {
    received: () => letters,
    close: () => subscription.close(),
  };
}

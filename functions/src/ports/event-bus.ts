import type { JsonObject } from "../domain/json.js";
import type { TopicName } from "../platform/topics.js";

export interface PublishOptions {
  /**
   * Messages with the same key are delivered in the order they were published, to
   * subscriptions that ask for ordering (the notifier's, so a thread reads in order).
   */
  orderingKey?: string;
}

export interface EventBus {
  /** Publishes a JSON message; resolves with the message id once the broker accepted it. */
  publish(
    topic: TopicName,
    data: JsonObject,
    attributes?: Record<string, string>,
    options?: PublishOptions,
  ): Promise<string>;
}

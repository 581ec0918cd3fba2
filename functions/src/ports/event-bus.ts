import type { JsonObject } from "../domain/json.js";
import type { TopicName } from "../platform/topics.js";

export interface EventBus {
  /** Publishes a JSON message; resolves with the message id once the broker accepted it. */
  publish(topic: TopicName, data: JsonObject, attributes?: Record<string, string>): Promise<string>;
}

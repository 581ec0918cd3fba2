import type { PubSub, Topic } from "@google-cloud/pubsub";
import type { JsonObject } from "../../domain/json.js";
import type { TopicName } from "../../platform/topics.js";
import type { EventBus, PublishOptions } from "../../ports/event-bus.js";
import { createPubSub } from "./client.js";
import { toPublishError } from "./errors.js";

/**
 * EventBus on Pub/Sub (the emulator locally). Messages are UTF-8 JSON; the push
 * subscription hands them to functions-framework, which decodes them for the handler.
 */
export class PubSubEventBus implements EventBus {
  private readonly client: PubSub;
  private readonly ownsClient: boolean;
  // Topic handles carry the publisher and its batching queue; one per topic, reused.
  private readonly topics = new Map<TopicName, Topic>();

  /** Pass a project id to let the bus own its client, or a client to share one. */
  constructor(projectIdOrClient: string | PubSub) {
    this.ownsClient = typeof projectIdOrClient === "string";
    this.client =
      typeof projectIdOrClient === "string"
        ? createPubSub({ projectId: projectIdOrClient })
        : projectIdOrClient;
  }

  async publish(
    topic: TopicName,
    data: JsonObject,
    attributes?: Record<string, string>,
    options: PublishOptions = {},
  ): Promise<string> {
    const handle = this.topic(topic);
    const { orderingKey } = options;
    try {
      return await handle.publishMessage({
        data: Buffer.from(JSON.stringify(data), "utf8"),
        ...(attributes && Object.keys(attributes).length > 0 ? { attributes } : {}),
        ...(orderingKey ? { orderingKey } : {}),
      });
    } catch (error) {
      // After a failure the client refuses every later message with that key until told to
      // resume; the caller's retry republishes, so resuming at once loses no order it needs.
      if (orderingKey) handle.resumePublishing(orderingKey);
      throw toPublishError(error, topic);
    }
  }

  /** Sends what is still batched and, when the bus created the client, closes it. */
  async close(): Promise<void> {
    await Promise.all([...this.topics.values()].map((t) => t.flush()));
    this.topics.clear();
    if (this.ownsClient) await this.client.close();
  }

  private topic(name: TopicName): Topic {
    let handle = this.topics.get(name);
    if (!handle) {
      handle = this.client.topic(name, { messageOrdering: true });
      this.topics.set(name, handle);
    }
    return handle;
  }
}

import type { PubSub } from "@google-cloud/pubsub";
import { createPubSub } from "../adapters/pubsub/client.js";
import { ALREADY_EXISTS, grpcCode } from "../adapters/pubsub/errors.js";
import { ConfigError, StorageError } from "../domain/errors.js";
import { deadLetterTopic, TOPICS, type TopicName } from "../platform/topics.js";

/**
 * Creates on the Pub/Sub emulator what terraform/pubsub.tf creates in production: every
 * topic, its dead-letter topic, a pull subscription holding each dead-letter topic's
 * messages, and push subscriptions delivering to the local function servers.
 */
export interface TopologyOptions {
  /** Topic → URL of the local function that consumes it; topics left out get no push subscription. */
  pushEndpoints: Partial<Record<TopicName, string>>;
  /** Deliveries before a message is dead-lettered; Pub/Sub (and the emulator) accept 5–100. */
  maxDeliveryAttempts: number;
  /**
   * How long each topic's push delivery may take before Pub/Sub retries it; a topic left out
   * gets 60 s. The local stack passes what terraform/pubsub.tf sets (local/terraform-settings.ts).
   */
  ackDeadlines?: Partial<Record<TopicName, number>>;
  /**
   * How long Pub/Sub waits before redelivering a refused push (terraform/pubsub.tf's
   * retry_policy); without it, Pub/Sub's default of redelivering at once
   * (https://cloud.google.com/pubsub/docs/handling-failures#subscription_retry_policy).
   */
  retryPolicy?: { minimumBackoffSeconds: number; maximumBackoffSeconds: number };
  /** A client to use; otherwise one is created for the call and closed after it. */
  client?: PubSub;
}

export interface Topology {
  topics: string[];
  /** Source topic → its push subscription. */
  pushSubscriptions: Partial<Record<TopicName, string>>;
  /** Source topic → the pull subscription on its dead-letter topic. */
  deadLetterSubscriptions: Record<TopicName, string>;
}

const ALL_TOPICS: readonly TopicName[] = Object.values(TOPICS);

export function pushSubscriptionName(topic: TopicName): string {
  return `${topic}-push`;
}

/** Same name terraform gives the production subscription. */
export function deadLetterSubscriptionName(topic: TopicName): string {
  return `${deadLetterTopic(topic)}-hold`;
}

/**
 * Idempotent: existing topics and subscriptions are kept, and an existing push
 * subscription is pointed at the endpoint given now (local servers get new ports each run).
 */
export async function ensureTopology(projectId: string, options: TopologyOptions): Promise<Topology> {
  const { maxDeliveryAttempts } = options;
  if (!Number.isInteger(maxDeliveryAttempts) || maxDeliveryAttempts < 5 || maxDeliveryAttempts > 100) {
    throw new ConfigError(`maxDeliveryAttempts must be an integer from 5 to 100, got ${maxDeliveryAttempts}`);
  }
  const client = options.client ?? createPubSub({ projectId });
  try {
    const topicNames = ALL_TOPICS.flatMap((t) => [t, deadLetterTopic(t)]);
    await Promise.all(topicNames.map((name) => ensureTopic(client, name)));

    const deadLetterSubscriptions = Object.fromEntries(
      ALL_TOPICS.map((t) => [t, deadLetterSubscriptionName(t)]),
    ) as Record<TopicName, string>;
    await Promise.all(
      ALL_TOPICS.map((t) =>
        ensureSubscription(client, deadLetterTopic(t), deadLetterSubscriptionName(t), {
          ackDeadlineSeconds: 60,
        }),
      ),
    );

    const pushSubscriptions: Partial<Record<TopicName, string>> = {};
    await Promise.all(
      ALL_TOPICS.map(async (t) => {
        const endpoint = options.pushEndpoints[t];
        if (!endpoint) return;
        pushSubscriptions[t] = pushSubscriptionName(t);
        await ensureSubscription(client, t, pushSubscriptionName(t), {
          pushConfig: { pushEndpoint: endpoint },
          ackDeadlineSeconds: options.ackDeadlines?.[t] ?? 60,
          ...(options.retryPolicy
            ? {
                retryPolicy: {
                  minimumBackoff: { seconds: options.retryPolicy.minimumBackoffSeconds },
                  maximumBackoff: { seconds: options.retryPolicy.maximumBackoffSeconds },
                },
              }
            : {}),
          // Not ordered, unlike Terraform's notifier subscription (ORDERED_TOPICS): the
          // emulator never dead-letters on an ordered subscription, it just stops delivering.
          deadLetterPolicy: {
            deadLetterTopic: `projects/${projectId}/topics/${deadLetterTopic(t)}`,
            maxDeliveryAttempts,
          },
        });
      }),
    );
    return { topics: topicNames, pushSubscriptions, deadLetterSubscriptions };
  } finally {
    if (!options.client) await client.close();
  }
}

async function ensureTopic(client: PubSub, name: string): Promise<void> {
  try {
    await client.createTopic(name);
  } catch (error) {
    if (grpcCode(error) !== ALREADY_EXISTS) throw setupError(`create topic ${name}`, error);
  }
}

interface SubscriptionSettings {
  ackDeadlineSeconds: number;
  pushConfig?: { pushEndpoint: string };
  deadLetterPolicy?: { deadLetterTopic: string; maxDeliveryAttempts: number };
  retryPolicy?: { minimumBackoff: { seconds: number }; maximumBackoff: { seconds: number } };
}

async function ensureSubscription(
  client: PubSub,
  topic: string,
  name: string,
  settings: SubscriptionSettings,
): Promise<void> {
  try {
    await client.topic(topic).createSubscription(name, settings);
    return;
  } catch (error) {
    if (grpcCode(error) !== ALREADY_EXISTS) throw setupError(`create subscription ${name}`, error);
  }
  if (!settings.pushConfig) return;
  try {
    await client.subscription(name).setMetadata(settings);
  } catch (error) {
    throw setupError(`update subscription ${name}`, error);
  }
}

function setupError(what: string, error: unknown): StorageError {
  const message = error instanceof Error ? error.message : String(error);
  return new StorageError(`Pub/Sub ${what} failed: ${message}`, false, error);
}

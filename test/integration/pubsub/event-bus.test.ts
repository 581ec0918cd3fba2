import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { PubSub } from "@google-cloud/pubsub";
import { z } from "zod";
import { createPubSub } from "../../../functions/src/adapters/pubsub/client.js";
import { PublishError } from "../../../functions/src/adapters/pubsub/errors.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { pullMessages } from "../../../functions/src/adapters/pubsub/pull.js";
import { publishEvents } from "../../../functions/src/app/publish.js";
import type { InvestigationEvent } from "../../../functions/src/domain/investigation.js";
import { ensureTopology, pushSubscriptionName } from "../../../functions/src/local/pubsub-setup.js";
import { TOPICS, type TopicName } from "../../../functions/src/platform/topics.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { type PushReceiver, startPushReceiver } from "./push-receiver.js";

/** The body a push subscription POSTs, as functions-framework expects it. */
const PushBodySchema = z.object({
  subscription: z.string(),
  message: z.object({
    data: z.string(),
    attributes: z.record(z.string(), z.string()).optional(),
    messageId: z.string(),
    publishTime: z.string(),
  }),
});

let projectId: string;
let client: PubSub;
let bus: PubSubEventBus;
let receiver: PushReceiver;

before(async () => {
  await ensureEmulators();
  projectId = uniqueProjectId("bus");
  client = createPubSub({ projectId });
  receiver = await startPushReceiver();
  await ensureTopology(projectId, {
    pushEndpoints: {
      [TOPICS.investigationEvents]: `${receiver.url}/projects/${projectId}/topics/${TOPICS.investigationEvents}`,
    },
    maxDeliveryAttempts: 5,
    client,
  });
  bus = new PubSubEventBus(client);
});

after(async () => {
  await bus.close();
  await client.close();
  await receiver.close();
});

test("a published event reaches the push endpoint as {message:{data, attributes, messageId}, subscription}", async () => {
  const event = {
    investigationId: "inv-0123456789abcdef01234567",
    seq: 1,
    type: "created",
    note: ["ü", 1, null],
  };
  const messageId = await bus.publish(TOPICS.investigationEvents, event, {
    investigationId: event.investigationId,
    type: "created",
  });
  assert.match(messageId, /^\d+$/);

  const [delivery] = await receiver.waitFor(1, 10_000);
  const body = PushBodySchema.parse(delivery!.body);
  assert.equal(
    body.subscription,
    `projects/${projectId}/subscriptions/${pushSubscriptionName(TOPICS.investigationEvents)}`,
  );
  assert.equal(body.message.messageId, messageId);
  assert.deepEqual(JSON.parse(Buffer.from(body.message.data, "base64").toString("utf8")), event);
  assert.deepEqual(body.message.attributes, { investigationId: event.investigationId, type: "created" });
  assert.equal(delivery!.path, `/projects/${projectId}/topics/${TOPICS.investigationEvents}`);

  // Answered 204, so it is acknowledged and not delivered again.
  await sleep(1_500);
  assert.equal(receiver.requests.length, 1);
});

test("publishes without attributes, and in parallel through one cached topic handle", async () => {
  const before = receiver.requests.length;
  const ids = await Promise.all([1, 2, 3].map((n) => bus.publish(TOPICS.investigationEvents, { n })));
  assert.equal(new Set(ids).size, 3);
  const deliveries = (await receiver.waitFor(before + 3, 10_000))
    .slice(before)
    .map((d) => PushBodySchema.parse(d.body));
  assert.deepEqual(new Set(deliveries.map((d) => d.message.messageId)), new Set(ids));
  for (const d of deliveries) assert.equal(Object.keys(d.message.attributes ?? {}).length, 0);
});

test("events are keyed by investigation and keep their order on an ordered subscription", async () => {
  // Its own project and an ordered subscription, as Terraform makes the notifier's; the local
  // stack's is unordered because the emulator does not dead-letter on ordered ones.
  const orderedProject = uniqueProjectId("ordered");
  const orderedClient = createPubSub({ projectId: orderedProject });
  const orderedBus = new PubSubEventBus(orderedClient);
  try {
    await orderedClient.createTopic(TOPICS.investigationEvents);
    await orderedClient
      .topic(TOPICS.investigationEvents)
      .createSubscription("ordered-probe", { enableMessageOrdering: true });
    const ids = ["inv-00000000000000000000000a", "inv-00000000000000000000000b"];
    const events: InvestigationEvent[] = [];
    for (let seq = 1; seq <= 8; seq += 1) {
      for (const investigationId of ids) {
        events.push({
          investigationId,
          seq,
          type: "step_finished",
          at: new Date().toISOString(),
          message: `#${seq}`,
        });
      }
    }
    // All sent at once: the order must come from the client keeping each key's order.
    await publishEvents(orderedBus, events);
    const pulled = await pullMessages(orderedClient, "ordered-probe", {
      maxMessages: events.length,
      timeoutMs: 15_000,
    });
    assert.equal(pulled.length, events.length);
    for (const investigationId of ids) {
      const mine = pulled.filter((m) => m.attributes.investigationId === investigationId);
      assert.deepEqual(
        mine.map((m) => m.orderingKey),
        mine.map(() => investigationId),
        "keyed by investigation",
      );
      assert.deepEqual(
        mine.map((m) => (JSON.parse(m.data) as InvestigationEvent).seq),
        [1, 2, 3, 4, 5, 6, 7, 8],
        `${investigationId}: received in publish order`,
      );
    }
  } finally {
    await orderedBus.close();
    await orderedClient.close();
  }
});

test("publishing to a topic that does not exist is a non-retryable PublishError", async () => {
  const stranger = new PubSubEventBus(uniqueProjectId("no-topics"));
  try {
    await assert.rejects(
      stranger.publish(TOPICS.agentSessions as TopicName, { a: 1 }),
      (e: unknown) =>
        e instanceof PublishError &&
        !e.retryable &&
        e.topic === TOPICS.agentSessions &&
        /NOT_FOUND|not found/i.test(e.message),
    );
  } finally {
    await stranger.close();
  }
});

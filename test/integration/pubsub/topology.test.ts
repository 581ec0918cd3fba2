import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { PubSub } from "@google-cloud/pubsub";
import { createPubSub } from "../../../functions/src/adapters/pubsub/client.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { pullMessages } from "../../../functions/src/adapters/pubsub/pull.js";
import { ConfigError } from "../../../functions/src/domain/errors.js";
import {
  deadLetterSubscriptionName,
  ensureTopology,
  pushSubscriptionName,
} from "../../../functions/src/local/pubsub-setup.js";
import { deadLetterTopic, TOPICS } from "../../../functions/src/platform/topics.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { type PushReceiver, startPushReceiver } from "./push-receiver.js";

let client: PubSub;
let projectId: string;
let receiver: PushReceiver;

before(async () => {
  await ensureEmulators();
  projectId = uniqueProjectId("topology");
  client = createPubSub({ projectId });
  receiver = await startPushReceiver();
});

after(async () => {
  await client.close();
  await receiver.close();
});

async function names(list: Promise<[{ name: string }[], ...unknown[]]>): Promise<string[]> {
  const [items] = await list;
  return items.map((i) => i.name.split("/").pop() ?? "").sort();
}

test("creates every topic, its dead-letter topic and hold subscription, and the push subscriptions asked for", async () => {
  const endpoint = `${receiver.url}/findings`;
  const topology = await ensureTopology(projectId, {
    pushEndpoints: { [TOPICS.findings]: endpoint },
    maxDeliveryAttempts: 7,
    client,
  });
  const expectedTopics = Object.values(TOPICS)
    .flatMap((t) => [t, deadLetterTopic(t)])
    .sort();
  assert.deepEqual([...topology.topics].sort(), expectedTopics);
  assert.deepEqual(await names(client.getTopics()), expectedTopics);
  assert.deepEqual(topology.pushSubscriptions, { [TOPICS.findings]: "scc-findings-push" });
  assert.deepEqual(topology.deadLetterSubscriptions, {
    [TOPICS.findings]: "scc-findings-dead-letter-hold",
    [TOPICS.investigationEvents]: "investigation-events-dead-letter-hold",
    [TOPICS.agentSessions]: "agent-sessions-dead-letter-hold",
    [TOPICS.analystActions]: "analyst-actions-dead-letter-hold",
    [TOPICS.sweep]: "sweep-requests-dead-letter-hold",
  });
  assert.deepEqual(await names(client.getSubscriptions()), [
    "agent-sessions-dead-letter-hold",
    "analyst-actions-dead-letter-hold",
    "investigation-events-dead-letter-hold",
    "scc-findings-dead-letter-hold",
    "scc-findings-push",
    "sweep-requests-dead-letter-hold",
  ]);
  const [push] = await client.subscription(pushSubscriptionName(TOPICS.findings)).getMetadata();
  assert.equal(push.pushConfig?.pushEndpoint, endpoint);
  assert.equal(
    push.deadLetterPolicy?.deadLetterTopic,
    `projects/${projectId}/topics/scc-findings-dead-letter`,
  );
  assert.equal(push.deadLetterPolicy?.maxDeliveryAttempts, 7);
  assert.equal(push.ackDeadlineSeconds, 60);
});

test("is idempotent, and a second run points an existing push subscription at the new endpoint", async () => {
  const first = {
    pushEndpoints: { [TOPICS.agentSessions]: `${receiver.url}/old` },
    maxDeliveryAttempts: 5,
    client,
  };
  await ensureTopology(projectId, first);
  await ensureTopology(projectId, first);
  const moved = await ensureTopology(projectId, {
    ...first,
    pushEndpoints: { [TOPICS.agentSessions]: `${receiver.url}/new` },
  });
  assert.equal(moved.pushSubscriptions[TOPICS.agentSessions], "agent-sessions-push");
  const [meta] = await client.subscription(pushSubscriptionName(TOPICS.agentSessions)).getMetadata();
  assert.equal(meta.pushConfig?.pushEndpoint, `${receiver.url}/new`);
  assert.equal(meta.deadLetterPolicy?.maxDeliveryAttempts, 5);
});

test("refuses a delivery-attempt limit Pub/Sub would reject", async () => {
  for (const bad of [4, 101, 5.5]) {
    await assert.rejects(
      ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: bad, client }),
      ConfigError,
    );
  }
});

test("a message the endpoint keeps refusing is dead-lettered after maxDeliveryAttempts deliveries", async () => {
  const dlProject = uniqueProjectId("deadletter");
  const dlClient = createPubSub({ projectId: dlProject });
  const failing = await startPushReceiver();
  failing.status = 500;
  const bus = new PubSubEventBus(dlClient);
  try {
    await ensureTopology(dlProject, {
      pushEndpoints: { [TOPICS.investigationEvents]: `${failing.url}/events` },
      maxDeliveryAttempts: 5,
      client: dlClient,
    });
    const messageId = await bus.publish(
      TOPICS.investigationEvents,
      { poison: true },
      { investigationId: "inv-x" },
    );

    const [dead] = await pullMessages(dlClient, deadLetterSubscriptionName(TOPICS.investigationEvents), {
      maxMessages: 1,
      timeoutMs: 30_000,
    });
    assert.ok(dead, "nothing was dead-lettered");
    assert.deepEqual(JSON.parse(dead.data), { poison: true });
    assert.equal(dead.attributes.investigationId, "inv-x");
    assert.equal(dead.attributes.CloudPubSubDeadLetterSourceDeliveryCount, "5");
    assert.equal(
      dead.attributes.CloudPubSubDeadLetterSourceSubscription,
      pushSubscriptionName(TOPICS.investigationEvents),
    );
    assert.equal(dead.attributes.CloudPubSubDeadLetterSourceSubscriptionProject, dlProject);
    // Every delivery was the same message; the dead letter is a new message on another topic.
    const deliveries = failing.requests.map(
      (r) => (r.body as { message: { messageId: string } }).message.messageId,
    );
    assert.deepEqual(deliveries, [messageId, messageId, messageId, messageId, messageId]);
    assert.notEqual(dead.messageId, messageId);
  } finally {
    await bus.close();
    await dlClient.close();
    await failing.close();
  }
});

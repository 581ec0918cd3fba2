import assert from "node:assert/strict";
import { test } from "node:test";
import { deadLetterTopic, ORDERED_TOPICS, TOPICS } from "../../../functions/src/platform/topics.js";
import { ROLES } from "../../../functions/src/roles/index.js";
import {
  block,
  call,
  EACH_KEY,
  eachValue,
  type JsonObject,
  loadTerraform,
  local,
  obj,
  ref,
  renderEach,
  resource,
  resourcesOfType,
  shape,
  str,
  strings,
  type Terraform,
} from "./hcl.js";

const tf: Terraform = await loadTerraform();
const PUSHED = ROLES.flatMap((ep) => (ep.trigger === "pubsub" ? [{ name: ep.name, topic: ep.topic }] : []));
const CONSUMED_TOPICS = [...new Set(PUSHED.map((p) => p.topic))].sort();
const row = (name: string): JsonObject => obj(obj(local(tf, "functions"), "local.functions")[name], name);

test("every topic in TOPICS exists, created from local.topics", async () => {
  assert.deepEqual(
    strings(local(tf, "topics"), "local.topics").sort(),
    Object.values(TOPICS).sort(),
    "local.topics vs TOPICS in functions/src/platform/topics.ts",
  );
  const topic = resource(tf, "google_pubsub_topic.topic");
  assert.deepEqual(await shape(topic.for_each, "topic.for_each"), call("toset", ref("local", "topics")));
  assert.deepEqual(await shape(topic.name, "topic.name"), EACH_KEY);
  assert.deepEqual(
    [...resourcesOfType(tf, "google_pubsub_topic").keys()].sort(),
    ["dead_letter", "topic"],
    "topics are either the code's topics or their dead-letter topics",
  );
});

test("each Pub/Sub-triggered function has an authenticated push subscription on its topic", async () => {
  assert.deepEqual(await shape(local(tf, "pubsub_functions"), "local.pubsub_functions"), {
    for: ["key", "fn"],
    in: ref("local", "functions"),
    key: ref("key"),
    value: ref("fn"),
    if: { op: "equal", lhs: ref("fn", "trigger"), rhs: "pubsub" },
  });
  const push = resource(tf, "google_pubsub_subscription.push");
  assert.deepEqual(await shape(push.for_each, "push.for_each"), ref("local", "pubsub_functions"));
  assert.deepEqual(
    await shape(push.topic, "push.topic"),
    ref("google_pubsub_topic", "topic", eachValue("topic"), "id"),
  );

  const names = PUSHED.map((p) => renderEach(str(push.name, "subscription name"), p.name, row(p.name)));
  assert.equal(new Set(names).size, names.length, "subscription names are unique");
  for (const [i, p] of PUSHED.entries()) {
    assert.equal(row(p.name).topic, p.topic, `${p.name} subscribes to ${p.topic}`);
    assert.ok(names[i]?.startsWith(`${p.topic}-`), `subscription ${names[i]} is named after its topic`);
  }

  const pushConfig = block(push, "push_config", "push subscription");
  const uri = ref("google_cloudfunctions2_function", "function", EACH_KEY, "service_config", 0, "uri");
  // functions-framework reads the topic from the push path into the CloudEvent's source.
  assert.deepEqual(await shape(pushConfig.push_endpoint, "push_endpoint"), {
    template: [uri, "/projects/", ref("var", "project_id"), "/topics/", eachValue("topic")],
  });
  const oidc = block(pushConfig, "oidc_token", "push_config");
  assert.deepEqual(
    await shape(oidc.service_account_email, "oidc.service_account_email"),
    ref("google_service_account", "sa", "pubsubPush", "email"),
  );
  assert.deepEqual(
    await shape(oidc.audience, "oidc.audience"),
    uri,
    "the token audience is the Cloud Run service URL",
  );
  assert.deepEqual(
    await shape(push.ack_deadline_seconds, "ack_deadline_seconds"),
    call("min", 600, call("max", 10, ref("var", "functions", EACH_KEY, "timeout_seconds"))),
  );
});

test("each push subscription dead-letters into deadLetterTopic(topic)", async () => {
  assert.deepEqual(
    await shape(local(tf, "dead_letter_topics"), "local.dead_letter_topics"),
    call("toset", {
      for: ["fn"],
      in: call("values", ref("local", "pubsub_functions")),
      value: ref("fn", "topic"),
    }),
  );
  const deadLetter = resource(tf, "google_pubsub_topic.dead_letter");
  const DEAD_LETTER_TOPICS = ref("local", "dead_letter_topics");
  assert.deepEqual(await shape(deadLetter.for_each, "dead_letter.for_each"), DEAD_LETTER_TOPICS);
  for (const topic of CONSUMED_TOPICS) {
    assert.equal(renderEach(str(deadLetter.name, "dead-letter name"), topic, {}), deadLetterTopic(topic));
  }

  const policy = block(
    resource(tf, "google_pubsub_subscription.push"),
    "dead_letter_policy",
    "push subscription",
  );
  assert.deepEqual(
    await shape(policy.dead_letter_topic, "dead_letter_topic"),
    ref("google_pubsub_topic", "dead_letter", eachValue("topic"), "id"),
  );
  assert.deepEqual(
    await shape(policy.max_delivery_attempts, "max_delivery_attempts"),
    ref("var", "pubsub_max_delivery_attempts"),
  );

  const hold = resource(tf, "google_pubsub_subscription.dead_letter");
  assert.deepEqual(
    await shape(hold.for_each, "hold.for_each"),
    DEAD_LETTER_TOPICS,
    "every dead-letter topic keeps its messages",
  );
  assert.deepEqual(
    await shape(hold.topic, "hold.topic"),
    ref("google_pubsub_topic", "dead_letter", EACH_KEY, "id"),
  );
});

test("the Pub/Sub service agent may publish dead letters and acknowledge them on the source subscription", async () => {
  const identity = resource(tf, "google_project_service_identity.pubsub");
  assert.equal(identity.service, "pubsub.googleapis.com");
  assert.deepEqual(await shape(identity.provider, "provider"), ref("google-beta"));
  assert.deepEqual(await shape(local(tf, "pubsub_service_agent"), "local.pubsub_service_agent"), {
    template: ["serviceAccount:", ref("google_project_service_identity", "pubsub", "email")],
  });
  const AGENT = ref("local", "pubsub_service_agent");

  const publisher = resource(tf, "google_pubsub_topic_iam_member.dead_letter_publisher");
  assert.deepEqual(
    await shape(publisher.for_each, "publisher.for_each"),
    ref("local", "dead_letter_topics"),
    "one grant per dead-letter topic",
  );
  assert.deepEqual(
    await shape(publisher.topic, "publisher.topic"),
    ref("google_pubsub_topic", "dead_letter", EACH_KEY, "name"),
  );
  assert.equal(publisher.role, "roles/pubsub.publisher");
  assert.deepEqual(await shape(publisher.member, "publisher.member"), AGENT);

  const subscriber = resource(tf, "google_pubsub_subscription_iam_member.dead_letter_subscriber");
  assert.deepEqual(
    await shape(subscriber.for_each, "subscriber.for_each"),
    ref("local", "pubsub_functions"),
    "one grant per push subscription",
  );
  assert.deepEqual(
    await shape(subscriber.subscription, "subscriber.subscription"),
    ref("google_pubsub_subscription", "push", EACH_KEY, "name"),
  );
  assert.equal(subscriber.role, "roles/pubsub.subscriber");
  assert.deepEqual(await shape(subscriber.member, "subscriber.member"), AGENT);

  const tokenCreator = resource(tf, "google_service_account_iam_member.pubsub_token_creator");
  assert.deepEqual(
    await shape(tokenCreator.service_account_id, "service_account_id"),
    ref("google_service_account", "sa", "pubsubPush", "name"),
  );
  assert.equal(tokenCreator.role, "roles/iam.serviceAccountTokenCreator");
  assert.deepEqual(await shape(tokenCreator.member, "tokenCreator.member"), AGENT);
});

test("the code's ordered topics are delivered in order (one Slack thread per investigation)", async () => {
  assert.deepEqual(
    await shape(resource(tf, "google_pubsub_subscription.push").enable_message_ordering, "ordering"),
    eachValue("ordered"),
  );
  assert.ok(ORDERED_TOPICS.has(TOPICS.investigationEvents), "investigation events are ordered in the code");
  for (const p of PUSHED) {
    assert.equal(row(p.name).ordered, ORDERED_TOPICS.has(p.topic), `${p.name}: ordered delivery`);
  }
});

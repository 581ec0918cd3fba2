// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ENTRY_POINTS } from "../../../functions/src/platform/entrypoints.js";
import { deadLetterTopic, TOPICS } from "../../../functions/src/platform/topics.js";
import {
  block,
  type JsonObject,
  loadTerraform,
  local,
  norm,
  obj,
  renderEach,
  resource,
  resourcesOfType,
  str,
  strings,
  type Terraform,
} from "./hcl.js";

const tf: Terraform = await loadTerraform();
const PUSHED = ENTRY_POINTS.flatMap((ep) =>
  ep.trigger === "pubsub" ? [{ name: ep.name, topic: ep.topic }] : [],
);
const CONSUMED_TOPICS = [...new Set(PUSHED.map((p) => p.topic))].sort();
const row = (name: string): JsonObject => obj(obj(local(tf, "functions"), "local.functions")[name], name);

test("every topic in TOPICS exists, created from local.topics", () => {
  assert.deepEqual(
    strings(local(tf, "topics"), "local.topics").sort(),
    Object.values(TOPICS).sort(),
    "local.topics vs TOPICS in functions/src/platform/topics.ts",
  );
  const topic = resource(tf, "google_pubsub_topic.topic");
  assert.equal(topic.for_each, "${toset(local.topics)}");
  assert.equal(topic.name, "${each.key}");
  assert.deepEqual(
    [...resourcesOfType(tf, "google_pubsub_topic").keys()].sort(),
    ["dead_letter", "topic"],
    "topics are either the code's topics or their dead-letter topics",
  );
});

test("each Pub/Sub-triggered function has an authenticated push subscription on its topic", () => {
  assert.equal(
    norm(str(local(tf, "pubsub_functions"), "local.pubsub_functions")),
    '${{ for key, fn in local.functions : key => fn if fn.trigger == "pubsub" }}',
  );
  const push = resource(tf, "google_pubsub_subscription.push");
  assert.equal(push.for_each, "${local.pubsub_functions}");
  assert.equal(push.topic, "${google_pubsub_topic.topic[each.value.topic].id}");

  const names = PUSHED.map((p) => renderEach(str(push.name, "subscription name"), p.name, row(p.name)));
  assert.equal(new Set(names).size, names.length, "subscription names are unique");
  for (const [i, p] of PUSHED.entries()) {
    assert.equal(row(p.name).topic, p.topic, `${p.name} subscribes to ${p.topic}`);
    assert.ok(names[i]?.startsWith(`${p.topic}-`), `subscription ${names[i]} is named after its topic`);
  }

  const pushConfig = block(push, "push_config", "push subscription");
  const uri = "${google_cloudfunctions2_function.function[each.key].service_config[0].uri}";
  assert.ok(
    str(pushConfig.push_endpoint, "push_endpoint").startsWith(uri),
    "pushes to the function's own URL",
  );
  const oidc = block(pushConfig, "oidc_token", "push_config");
  assert.equal(oidc.service_account_email, '${google_service_account.sa["pubsubPush"].email}');
  assert.equal(oidc.audience, uri, "the token audience is the Cloud Run service URL");
  assert.equal(push.ack_deadline_seconds, "${min(600, max(10, var.functions[each.key].timeout_seconds))}");
});

test("each push subscription dead-letters into deadLetterTopic(topic)", () => {
  assert.equal(
    norm(str(local(tf, "dead_letter_topics"), "local.dead_letter_topics")),
    "${toset([for fn in values(local.pubsub_functions) : fn.topic])}",
  );
  const deadLetter = resource(tf, "google_pubsub_topic.dead_letter");
  assert.equal(deadLetter.for_each, "${local.dead_letter_topics}");
  for (const topic of CONSUMED_TOPICS) {
    assert.equal(renderEach(str(deadLetter.name, "dead-letter name"), topic, {}), deadLetterTopic(topic));
  }

  const policy = block(
    resource(tf, "google_pubsub_subscription.push"),
    "dead_letter_policy",
    "push subscription",
  );
  assert.equal(policy.dead_letter_topic, "${google_pubsub_topic.dead_letter[each.value.topic].id}");
  assert.equal(policy.max_delivery_attempts, "${var.pubsub_max_delivery_attempts}");

  const hold = resource(tf, "google_pubsub_subscription.dead_letter");
  assert.equal(hold.for_each, "${local.dead_letter_topics}", "every dead-letter topic keeps its messages");
  assert.equal(hold.topic, "${google_pubsub_topic.dead_letter[each.key].id}");
});

test("the Pub/Sub service agent may publish dead letters and acknowledge them on the source subscription", () => {
  const identity = resource(tf, "google_project_service_identity.pubsub");
  assert.equal(identity.service, "pubsub.googleapis.com");
  assert.equal(identity.provider, "${google-beta}");
  assert.equal(
    local(tf, "pubsub_service_agent"),
    "serviceAccount:${google_project_service_identity.pubsub.email}",
  );

  const publisher = resource(tf, "google_pubsub_topic_iam_member.dead_letter_publisher");
  assert.equal(publisher.for_each, "${local.dead_letter_topics}", "one grant per dead-letter topic");
  assert.equal(publisher.topic, "${google_pubsub_topic.dead_letter[each.key].name}");
  assert.equal(publisher.role, "roles/pubsub.publisher");
  assert.equal(publisher.member, "${local.pubsub_service_agent}");

  const subscriber = resource(tf, "google_pubsub_subscription_iam_member.dead_letter_subscriber");
  assert.equal(subscriber.for_each, "${local.pubsub_functions}", "one grant per push subscription");
  assert.equal(subscriber.subscription, "${google_pubsub_subscription.push[each.key].name}");
  assert.equal(subscriber.role, "roles/pubsub.subscriber");
  assert.equal(subscriber.member, "${local.pubsub_service_agent}");

  const tokenCreator = resource(tf, "google_service_account_iam_member.pubsub_token_creator");
  assert.equal(tokenCreator.service_account_id, '${google_service_account.sa["pubsubPush"].name}');
  assert.equal(tokenCreator.role, "roles/iam.serviceAccountTokenCreator");
  assert.equal(tokenCreator.member, "${local.pubsub_service_agent}");
});

test("the investigation-events subscription delivers in order (one Slack thread per investigation)", () => {
  assert.equal(
    resource(tf, "google_pubsub_subscription.push").enable_message_ordering,
    "${each.value.ordered}",
  );
  for (const p of PUSHED) {
    assert.equal(row(p.name).ordered, p.topic === TOPICS.investigationEvents, `${p.name}: ordered delivery`);
  }
});

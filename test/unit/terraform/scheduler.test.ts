import assert from "node:assert/strict";
import { test } from "node:test";
import { SWEEP_PERIOD_MS } from "../../../functions/src/app/sweep.js";
import { SCHEDULED_SWEEP, SweepRequestSchema } from "../../../functions/src/app/sweep-request.js";
import { TOPICS } from "../../../functions/src/platform/topics.js";
import { ROLES } from "../../../functions/src/roles/index.js";
import {
  block,
  constant,
  loadTerraform,
  local,
  obj,
  referenceOf,
  resource,
  strings,
  type Terraform,
} from "./hcl.js";

const tf: Terraform = await loadTerraform();
const job = resource(tf, "google_cloud_scheduler_job.sweep");
const target = block(job, "pubsub_target", "google_cloud_scheduler_job.sweep");

test("Cloud Scheduler publishes to the topic the sweep entry point consumes, on var.sweep_schedule, always", async () => {
  const sweep = ROLES.find((e) => e.name === "sweep");
  assert.ok(sweep?.trigger === "pubsub", "the sweep entry point is fed by Pub/Sub");
  assert.equal(sweep.topic, TOPICS.sweep);
  assert.deepEqual(await referenceOf(target.topic_name, "pubsub_target.topic_name"), [
    "google_pubsub_topic",
    "topic",
    sweep.topic,
    "id",
  ]);
  assert.deepEqual(await referenceOf(job.schedule, "schedule"), ["var", "sweep_schedule"]);
  assert.equal(await constant(job.time_zone, "time_zone"), "Etc/UTC");
  assert.equal(job.count, undefined, "the sweep is the only path for stalled investigations: never disabled");
  assert.equal(obj(tf.variables.get("sweep_schedule"), "var.sweep_schedule").nullable, false);
  assert.ok(strings(local(tf, "apis"), "local.apis").includes("cloudscheduler.googleapis.com"));
});

test("the scheduler's message is the scheduled sweep request the sweep function parses, with no attribute", async () => {
  const encoded = await constant(target.data, "pubsub_target.data");
  assert.equal(typeof encoded, "string");
  const body: unknown = JSON.parse(Buffer.from(encoded as string, "base64").toString("utf8"));
  assert.deepEqual(SweepRequestSchema.parse(body), SCHEDULED_SWEEP);
  assert.equal(target.attributes, undefined, "no magic attribute: the topic and the body say what it is");
});

test("the default schedule runs once per period the sweep's re-sends assume", async () => {
  const schedule = tf.variables.get("sweep_schedule");
  assert.ok(schedule, "variable sweep_schedule");
  assert.equal(schedule.default, `*/${SWEEP_PERIOD_MS / 60_000} * * * *`);
});

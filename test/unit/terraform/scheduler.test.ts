// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SWEEP_WINDOW_MS } from "../../../functions/src/app/sweep.js";
import { SWEEP_TICK, TOPICS } from "../../../functions/src/platform/topics.js";
import { block, loadTerraform, local, obj, resource, strings, type Terraform } from "./hcl.js";

const tf: Terraform = await loadTerraform();

test("the sweep's tick: Cloud Scheduler publishes the attribute ingest recognises to the findings topic", () => {
  const job = resource(tf, "google_cloud_scheduler_job.sweep");
  assert.equal(job.count, "${var.sweep_schedule == null ? 0 : 1}", "null disables the job");
  assert.equal(job.schedule, "${var.sweep_schedule}");
  assert.equal(job.time_zone, "Etc/UTC");
  const target = block(job, "pubsub_target", "google_cloud_scheduler_job.sweep");
  assert.equal(target.topic_name, `\${google_pubsub_topic.topic["${TOPICS.findings}"].id}`);
  assert.deepEqual(obj(target.attributes, "pubsub_target.attributes"), {
    [SWEEP_TICK.attribute]: SWEEP_TICK.value,
  });
  assert.ok(strings(local(tf, "apis"), "local.apis").includes("cloudscheduler.googleapis.com"));
});

test("the default schedule ticks once per sweep window", () => {
  const schedule = tf.variables.get("sweep_schedule");
  assert.ok(schedule, "variable sweep_schedule");
  const minutes = SWEEP_WINDOW_MS / 60_000;
  assert.equal(schedule.default, `*/${minutes} * * * *`);
});

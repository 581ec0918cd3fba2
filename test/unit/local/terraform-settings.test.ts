import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  pushAckDeadlineSeconds,
  terraformSettings,
} from "../../../functions/src/local/terraform-settings.js";
import { ROLES } from "../../../functions/src/roles/index.js";
import { defaultVariables, Evaluator, type Variables } from "../../integration/parity/terraform-env.js";
import { block, loadTerraform, obj, resource, str, type Terraform } from "../terraform/hcl.js";

/**
 * The local stack runs each function and push subscription with what terraform/ deploys
 * (decision 0052). These tests read the same .tf files another way (the parity tests' regex
 * reading of var.functions and their expression evaluator) and fail when the two part: a
 * default changed in variables.tf, or an acknowledgement-deadline expression in pubsub.tf the
 * local formula no longer matches.
 */
const tf: Terraform = await loadTerraform();
const settings = await terraformSettings();

function pushSubscription() {
  return resource(tf, "google_pubsub_subscription.push");
}

function evaluate(expression: string, key: string, vars: Variables = {}): unknown {
  const ev = new Evaluator(tf, { ...defaultVariables(tf), ...vars }, { key, value: {} });
  return ev.value(expression, `${expression} for ${key}`);
}

describe("the local stack's Terraform settings", () => {
  it("every function's instance cap, concurrency and timeout are var.functions' defaults", () => {
    const defaults = obj(defaultVariables(tf).functions as never, "var.functions defaults");
    for (const role of ROLES) {
      const d = obj(defaults[role.name], role.name);
      assert.deepEqual(
        settings.functions[role.name],
        {
          maxInstances: d.max_instances,
          // Unset: Cloud Functions 2nd gen's one request per instance.
          concurrency: d.concurrency ?? 1,
          timeoutSeconds: d.timeout_seconds,
        },
        role.name,
      );
    }
    // The one function Terraform gives more than one request per instance (decision 0039).
    assert.equal(settings.functions.sweep.concurrency, 80);
    assert.equal(settings.functions.stepExecutor.concurrency, 1);
  });

  it("the governor's concurrency and the push delivery attempts are the variables' defaults", () => {
    const vars = defaultVariables(tf);
    assert.equal(settings.governorMaxConcurrent, vars.governor_max_concurrent);
    assert.equal(settings.push.maxDeliveryAttempts, vars.pubsub_max_delivery_attempts);
    const attempts = block(pushSubscription(), "dead_letter_policy", "push").max_delivery_attempts;
    assert.equal(
      evaluate(str(attempts, "max_delivery_attempts"), "ingest"),
      settings.push.maxDeliveryAttempts,
    );
  });

  it("the push retry policy is pubsub.tf's", () => {
    const retry = block(pushSubscription(), "retry_policy", "push");
    assert.equal(`${settings.push.minimumBackoffSeconds}s`, retry.minimum_backoff);
    assert.equal(`${settings.push.maximumBackoffSeconds}s`, retry.maximum_backoff);
  });

  it("a push subscription's acknowledgement deadline is pubsub.tf's expression, for every pushed function and any timeout", () => {
    const expression = str(pushSubscription().ack_deadline_seconds, "push.ack_deadline_seconds");
    const pushed = ROLES.filter((r) => r.trigger === "pubsub").map((r) => r.name);
    assert.ok(pushed.length >= 4, `pushed functions: ${pushed.join(", ")}`);
    for (const name of pushed)
      assert.equal(
        evaluate(expression, name),
        pushAckDeadlineSeconds(settings.functions[name].timeoutSeconds),
        name,
      );
    fc.assert(
      fc.property(fc.constantFrom(...pushed), fc.integer({ min: 1, max: 1800 }), (name, timeout) => {
        const vars = {
          functions: {
            ...obj(defaultVariables(tf).functions as never, "f"),
            [name]: { timeout_seconds: timeout },
          },
        };
        assert.equal(evaluate(expression, name, vars as Variables), pushAckDeadlineSeconds(timeout));
      }),
      { numRuns: 50 },
    );
  });

  it("is not the old fixed 60 s: the pushed functions' deadlines follow their timeouts", () => {
    const pushed = ROLES.filter((r) => r.trigger === "pubsub");
    const deadlines = new Set(
      pushed.map((r) => pushAckDeadlineSeconds(settings.functions[r.name].timeoutSeconds)),
    );
    assert.ok(deadlines.size > 1, `one deadline for all: ${[...deadlines].join(", ")}`);
  });
});

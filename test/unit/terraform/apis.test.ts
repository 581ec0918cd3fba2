// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ACTION_TOOLS } from "../../../functions/src/domain/response-actions.js";
import { defaultVariables, Evaluator, type Variables } from "../../integration/parity/terraform-env.js";
import {
  loadTerraform,
  local,
  norm,
  obj,
  resource,
  resourcesOfType,
  str,
  strings,
  type Terraform,
} from "./hcl.js";

/**
 * Which Google APIs a deployment enables, evaluated from terraform/apis.tf for given variables:
 * local.apis always, and each entry of local.feature_apis whose condition holds. A resource that
 * calls an API the project has not enabled fails at apply (or, for the responder's calls, at the
 * first approved action, with SERVICE_DISABLED).
 */
const tf: Terraform = await loadTerraform();

function enabledApis(vars: Variables): string[] {
  const ev = new Evaluator(tf, { ...defaultVariables(tf), ...vars });
  const features = obj(local(tf, "feature_apis"), "local.feature_apis");
  const on = Object.entries(features)
    .filter(([api, condition]) => ev.value(condition, `feature_apis.${api}`) === true)
    .map(([api]) => api);
  return [...strings(local(tf, "apis"), "local.apis"), ...on].sort();
}

// The REST host of the client each action's adapter builds (functions/src/adapters/iam,
// adapters/compute, adapters/resourcemanager: @googleapis/iam, @googleapis/compute,
// @googleapis/cloudresourcemanager). The responder calls them as its own service account,
// whose project is the ferret project: that is where the API must be on.
const ACTION_API: Record<(typeof ACTION_TOOLS)[number], string> = {
  disable_service_account_key: "iam.googleapis.com",
  add_deny_egress_tag: "compute.googleapis.com",
  revoke_iam_binding: "cloudresourcemanager.googleapis.com",
};

test("the feature APIs resource enables exactly the feature APIs whose condition holds", () => {
  const r = resource(tf, "google_project_service.feature_api");
  assert.equal(
    norm(str(r.for_each, "feature_api.for_each")),
    "${toset([for api, needed in local.feature_apis : api if needed])}",
  );
  assert.equal(r.disable_on_destroy, false);
  assert.equal(r.disable_dependent_services, false);
});

test("every response action's API is enabled whenever the action is", () => {
  assert.deepEqual(Object.keys(ACTION_API).sort(), [...ACTION_TOOLS].sort(), "an API for every action");
  for (const action of ACTION_TOOLS) {
    const apis = enabledApis({ response_actions: [action], organization_id: "123456789012" });
    assert.ok(apis.includes(ACTION_API[action]), `${action} needs ${ACTION_API[action]}; enabled: ${apis}`);
  }
});

test("compute and IAP stay off in a default deployment, and the console turns both on", () => {
  const defaults = enabledApis({});
  assert.ok(!defaults.includes("compute.googleapis.com"));
  assert.ok(!defaults.includes("iap.googleapis.com"));
  const console = enabledApis({ enable_console: true });
  assert.ok(console.includes("compute.googleapis.com") && console.includes("iap.googleapis.com"));
});

test("every custom role waits for the IAM API (custom roles are created through it)", () => {
  assert.ok(strings(local(tf, "apis"), "local.apis").includes("iam.googleapis.com"));
  const roles = [
    ...resourcesOfType(tf, "google_project_iam_custom_role"),
    ...resourcesOfType(tf, "google_organization_iam_custom_role"),
  ];
  assert.ok(roles.length >= 4, `custom roles found: ${roles.map(([name]) => name)}`);
  for (const [name, body] of roles)
    assert.ok(
      strings(body.depends_on ?? [], `${name}.depends_on`).includes("${google_project_service.api}"),
      `${name} depends on google_project_service.api`,
    );
});

test("the deny-egress firewall rules wait for the Compute API", () => {
  const firewall = resource(tf, "google_compute_firewall.deny_egress");
  assert.ok(
    strings(firewall.depends_on ?? [], "depends_on").includes("${google_project_service.feature_api}"),
  );
});

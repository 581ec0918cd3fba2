// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../../functions/src/config/config.js";
import { ACTION_TOOLS } from "../../../functions/src/domain/response-actions.js";
import { defaultVariables, Evaluator } from "../../integration/parity/terraform-env.js";
import {
  allStrings,
  block,
  loadTerraform,
  local,
  norm,
  obj,
  resource,
  str,
  strings,
  type Terraform,
} from "./hcl.js";

const tf: Terraform = await loadTerraform();

// The permission each REST method needs, from the "Authorization requires" line of its reference:
// IAM v1 projects.serviceAccounts.keys get/disable, Compute v1 instances get/setTags, Resource
// Manager v3 projects getIamPolicy/setIamPolicy.
const DOCUMENTED: Record<string, string[]> = {
  disable_service_account_key: ["iam.serviceAccountKeys.get", "iam.serviceAccountKeys.disable"],
  add_deny_egress_tag: ["compute.instances.get", "compute.instances.setTags"],
  revoke_iam_binding: ["resourcemanager.projects.getIamPolicy", "resourcemanager.projects.setIamPolicy"],
};

test("each action's permissions are exactly the documented ones of the two methods it calls, for every action ferret has", () => {
  const table = obj(local(tf, "response_action_permissions"), "local.response_action_permissions");
  assert.deepEqual(Object.keys(table).sort(), [...ACTION_TOOLS].sort());
  for (const [action, permissions] of Object.entries(table))
    assert.deepEqual(strings(permissions, action), DOCUMENTED[action], action);
});

test("the role holds only the enabled actions' permissions and exists only when one is enabled", () => {
  const role = resource(tf, "google_organization_iam_custom_role.response_actions");
  assert.equal(norm(str(role.count, "count")), "${local.response_actions_enabled ? 1 : 0}");
  assert.equal(
    norm(str(local(tf, "response_actions_enabled"), "enabled")),
    "${length(var.response_actions) > 0}",
  );
  assert.equal(
    norm(str(role.permissions, "permissions")),
    "${sort(distinct(flatten([for a in var.response_actions : local.response_action_permissions[a]])))}",
  );
  assert.deepEqual(tf.variables.get("response_actions")?.default, [], "no action unless asked for");
});

test("the role is granted to the responder's identity only, and nothing else names it", () => {
  const grant = resource(tf, "google_organization_iam_member.response_actions");
  assert.equal(grant.member, '${google_service_account.sa["responder"].member}');
  assert.equal(grant.role, "${google_organization_iam_custom_role.response_actions[0].name}");
  assert.equal(grant.count, "${local.response_actions_enabled ? 1 : 0}");
  const uses: string[] = [];
  for (const [file, parsed] of tf.files)
    for (const s of allStrings(parsed))
      if (s.includes("google_organization_iam_custom_role.response_actions"))
        uses.push(`${file}: ${norm(s)}`);
  assert.deepEqual(uses.sort(), [
    "response-actions.tf: ${google_organization_iam_custom_role.response_actions[0].name}",
    "response-actions.tf: ${local.response_actions_enabled ? google_organization_iam_custom_role.response_actions[0].name : null}",
  ]);
});

test("the deny-egress rule denies all egress, IPv4 and IPv6, from instances with the configured tag", () => {
  const rule = resource(tf, "google_compute_firewall.deny_egress");
  assert.equal(rule.direction, "EGRESS");
  assert.equal(
    Array.isArray(rule.target_tags) && norm(String(rule.target_tags[0])),
    "${var.deny_egress_tag}",
  );
  assert.equal(
    norm(str(Array.isArray(rule.destination_ranges) ? rule.destination_ranges[0] : undefined, "ranges")),
    '${each.value.family == "ipv4" ? "0.0.0.0/0" : "::/0"}',
  );
  assert.equal(block(rule, "deny", "deny").protocol, "all");
  assert.equal(rule.priority, "${var.deny_egress_priority}");
  assert.match(
    norm(str(rule.for_each, "for_each")),
    /^\$\{contains\(var\.response_actions, "add_deny_egress_tag"\) \?/,
  );
  assert.match(
    norm(str(rule.for_each, "for_each")),
    /setproduct\(var\.deny_egress_networks, \["ipv4", "ipv6"\]\)/,
  );
});

test("the tag Terraform's rule targets is the tag ferret adds, by default and as passed to the functions", () => {
  assert.equal(tf.variables.get("deny_egress_tag")?.default, loadConfig({ env: {} }).actions.denyEgressTag);
  const env = obj(obj(local(tf, "env_groups"), "env_groups").actions, "env_groups.actions");
  assert.equal(env.FERRET_ACTIONS_DENY_EGRESS_TAG, "${var.deny_egress_tag}");
  assert.equal(norm(str(env.FERRET_ACTIONS_ENABLED, "enabled")), '${join(",", var.response_actions)}');
});

test("two networks of one project get deny-egress rules with distinct, valid names (firewall names are unique per project)", () => {
  const rule = resource(tf, "google_compute_firewall.deny_egress");
  const networks = [
    { project: "acme-prod", network: "default" },
    { project: "acme-prod", network: "shared-vpc" },
    { project: "acme-prod", network: `n${"x".repeat(62)}` },
    { project: "acme-dev", network: "default" },
  ];
  const vars = {
    ...defaultVariables(tf),
    response_actions: ["add_deny_egress_tag"],
    deny_egress_networks: networks,
  };
  const names = new Map<string, string[]>();
  // The for_each keys are network × family (setproduct with ["ipv4", "ipv6"]), pinned above.
  for (const n of networks)
    for (const family of ["ipv4", "ipv6"]) {
      const each = { key: `${n.project}/${n.network}/${family}`, value: { ...n, family } };
      const name = new Evaluator(tf, vars, each).value(rule.name, "deny_egress.name");
      assert.equal(typeof name, "string");
      // Compute Engine resource names: RFC 1035, at most 63 characters.
      assert.match(String(name), /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, `${each.key}: ${name}`);
      names.set(n.project, [...(names.get(n.project) ?? []), String(name)]);
    }
  for (const [project, inProject] of names)
    assert.equal(new Set(inProject).size, inProject.length, `${project}: ${inProject.join(", ")}`);
});

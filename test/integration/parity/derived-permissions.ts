// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions.
/**
 * From observed calls to least privilege: each call the recorder saw (call-recorder.ts) is
 * mapped to the IAM permissions Google documents for its method
 * (test/fixtures/real/iam-permissions), and each permission is looked for among the grants
 * Terraform gives the caller's service account, through Google's predefined-role permission
 * lists (test/fixtures/real/iam-roles) and the permissions of Terraform's custom roles.
 */
import { readFileSync } from "node:fs";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import {
  arr,
  type Json,
  local,
  norm,
  obj,
  resourcesOfType,
  str,
  strings,
  type Terraform,
} from "../../unit/terraform/hcl.js";
import type { ObservedCall } from "./call-recorder.js";
import { Evaluator, grants as grantRows, type Variables } from "./terraform-env.js";

type MethodTable = Record<string, Record<string, string[]>>;

export const METHOD_PERMISSIONS = JSON.parse(
  readFileSync(fromRoot("test/fixtures/real/iam-permissions/method-permissions.json"), "utf8"),
) as MethodTable & { _comment?: unknown };

const ROLE_PERMISSIONS = JSON.parse(
  readFileSync(fromRoot("test/fixtures/real/iam-roles/predefined-role-permissions.json"), "utf8"),
) as Record<string, string[] | string>;

export function predefinedRolePermissions(role: string): readonly string[] {
  const listed = ROLE_PERMISSIONS[role];
  if (!Array.isArray(listed)) throw new Error(`${role} is not in the predefined-role fixture`);
  return listed;
}

/** "VERB /a/*\/b" matches "VERB /a/x/b"; a gRPC path matches itself. */
function matches(pattern: string, method: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join("[^/]+")}$`,
  );
  return re.test(method);
}

/** The documented method a call is, or undefined when the table does not know it. */
export function documentedMethod(call: ObservedCall): string | undefined {
  const table = METHOD_PERMISSIONS[call.api];
  if (!table) return undefined;
  const keys = call.variants.length ? call.variants.map((v) => `${call.method}#${v}`) : [call.method];
  const found = keys.map((key) => Object.keys(table).find((pattern) => matches(pattern, key)));
  if (found.some((f) => f === undefined)) return undefined;
  return [...new Set(found as string[])].join(" + ");
}

export interface Need {
  identity: string;
  permission: string;
  resource: string;
  /** The documented method (pattern) that needs it. */
  method: string;
}

export function needsOf(call: ObservedCall): Need[] {
  const table = METHOD_PERMISSIONS[call.api] ?? {};
  const keys = call.variants.length ? call.variants.map((v) => `${call.method}#${v}`) : [call.method];
  const out: Need[] = [];
  for (const key of keys) {
    const pattern = Object.keys(table).find((p) => matches(p, key));
    if (!pattern) continue;
    for (const permission of table[pattern] ?? [])
      out.push({
        identity: call.identity,
        permission,
        resource: call.resource,
        method: `${call.api} ${pattern}`,
      });
  }
  return out;
}

/** One grant of Terraform's: who, which permissions, on what. */
export interface HeldGrant {
  identity: string;
  /** How the grant reads in Terraform, for reports. */
  label: string;
  permissions: readonly string[];
  /** Whether a resource name lies within the grant's scope. */
  covers(resource: string): boolean;
}

const SA_MEMBER = /^\$\{google_service_account\.sa\["(\w+)"\]\.member\}$/;

/**
 * Every grant Terraform makes to the functions' and the workflow's service accounts for these
 * variables: the rows of local.grants (predefined roles on ferret's resources) and the custom
 * roles granted to one of those accounts at project or organization scope.
 */
export function terraformGrants(tf: Terraform, vars: Variables): HeldGrant[] {
  const project = String(vars.project_id);
  const inProject = (r: string) => r === `projects/${project}` || r.startsWith(`projects/${project}/`);
  const enabledSecrets = new Evaluator(tf, vars).value(local(tf, "enabled_secrets"), "local.enabled_secrets");
  // iam.tf grants on a secret only while it is mounted (local.enabled_secrets).
  const applied = grantRows(tf).filter(
    (g) => g.scope !== "secret" || (Array.isArray(enabledSecrets) && enabledSecrets.includes(g.target)),
  );
  const held: HeldGrant[] = applied.map((g) => {
    const label = `${g.role} on ${g.scope}${g.target ? ` ${g.target}` : ""}`;
    const permissions = predefinedRolePermissions(g.role);
    const at = (exact: string) => (r: string) => r === exact;
    const covers =
      g.scope === "project"
        ? inProject
        : g.scope === "topic"
          ? at(`projects/${project}/topics/${g.target}`)
          : g.scope === "dead_letter_topic"
            ? at(`projects/${project}/topics/${g.target}-dead-letter`)
            : g.scope === "function"
              ? at(`function:${g.target}`)
              : g.scope === "secret"
                ? at(`secret:${g.target}`)
                : () => false; // log_dataset and the build's buckets: no emulator-backed call reaches them
    return { identity: g.sa, label, permissions, covers };
  });

  const ev = new Evaluator(tf, vars);
  const customRoles = new Map<string, { permissions: readonly string[]; org: boolean }>();
  for (const [kind, org] of [
    ["google_project_iam_custom_role", false],
    ["google_organization_iam_custom_role", true],
  ] as const) {
    for (const [name, body] of resourcesOfType(tf, kind)) {
      if (body.count !== undefined && ev.value(body.count, `${kind}.${name}.count`) === 0) continue;
      customRoles.set(`${kind}.${name}`, {
        permissions: customRolePermissions(tf, vars, body.permissions),
        org,
      });
    }
  }
  for (const kind of ["google_project_iam_member", "google_organization_iam_member"]) {
    for (const [name, body] of resourcesOfType(tf, kind)) {
      const member = SA_MEMBER.exec(String(body.member ?? ""));
      const role =
        /^\$\{(google_(?:project|organization)_iam_custom_role\.\w+)(?:\[0\])?\.(?:id|name)\}$/.exec(
          String(body.role ?? ""),
        );
      if (!member || !role) continue;
      if (body.count !== undefined && ev.value(body.count, `${kind}.${name}.count`) === 0) continue;
      const custom = customRoles.get(role[1] as string);
      if (!custom) continue;
      // The organization holds the ferret project and the projects whose findings ferret acts on.
      const covers = custom.org
        ? (r: string) =>
            r.startsWith(`organizations/${String(vars.organization_id)}/`) || r.startsWith("projects/")
        : inProject;
      held.push({
        identity: member[1] as string,
        label: `custom role ${role[1]} on ${custom.org ? "organization" : "project"}`,
        permissions: custom.permissions,
        covers,
      });
    }
  }
  return held;
}

/** A custom role's permissions: a literal list, or the response actions' union (pinned). */
function customRolePermissions(tf: Terraform, vars: Variables, permissions: Json | undefined): string[] {
  if (Array.isArray(permissions)) return strings(permissions, "permissions");
  const expression = norm(str(permissions, "permissions"));
  const union =
    /^\$\{sort\(distinct\(flatten\(\[for a in var\.response_actions : local\.(\w+)\[a\]\]\)\)\)\}$/.exec(
      expression,
    );
  if (union) {
    const table = obj(local(tf, union[1] as string), `local.${union[1]}`);
    const enabled = arr(vars.response_actions as Json, "var.response_actions").map(String);
    return [...new Set(enabled.flatMap((a) => strings(table[a], a)))].sort();
  }
  throw new Error(`a custom role's permissions are an expression this test cannot read: ${expression}`);
}

export interface Analysis {
  /** Distinct (identity, documented method) pairs observed. */
  pairs: string[];
  /** Calls whose method the permission table does not know. */
  unknown: ObservedCall[];
  /** Needs no grant of that identity covers. */
  missing: Need[];
  /** Grants none of whose permissions an observed call needs. */
  unused: HeldGrant[];
  /** Documented methods (per API the functions call) that no call exercised. */
  unexercised: string[];
}

export function analyse(calls: readonly ObservedCall[], held: readonly HeldGrant[]): Analysis {
  const unknown = calls.filter((c) => documentedMethod(c) === undefined);
  const needs = calls.flatMap(needsOf);
  const key = (n: Need) => `${n.identity} ${n.permission} ${n.resource}`;
  const distinctNeeds = [...new Map(needs.map((n) => [key(n), n])).values()];
  const missing = distinctNeeds.filter(
    (n) =>
      !held.some(
        (g) => g.identity === n.identity && g.permissions.includes(n.permission) && g.covers(n.resource),
      ),
  );
  const unused = held.filter(
    (g) =>
      !distinctNeeds.some(
        (n) => n.identity === g.identity && g.permissions.includes(n.permission) && g.covers(n.resource),
      ),
  );
  const pairs = [...new Set(calls.flatMap((c) => needsOf(c).map((n) => `${c.identity} ${n.method}`)))].sort();
  const exercised = new Set(needs.map((n) => n.method));
  const unexercised = Object.entries(METHOD_PERMISSIONS as MethodTable)
    .filter(([api]) => api !== "_comment")
    .flatMap(([api, table]) => Object.keys(table).map((pattern) => `${api} ${pattern}`))
    .filter((m) => !exercised.has(m))
    .sort();
  return { pairs, unknown, missing, unused, unexercised };
}

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { loadTerraform } from "../../unit/terraform/hcl.js";
import { OPERATIONS, type Operation } from "./permissions.js";
import { type Grant, grants } from "./terraform-env.js";

const ROLE_PERMISSIONS = JSON.parse(
  readFileSync(fromRoot("test/fixtures/real/iam-roles/predefined-role-permissions.json"), "utf8"),
) as Record<string, string[] | string>;

function permissionsOf(role: string): readonly string[] {
  const listed = ROLE_PERMISSIONS[role];
  if (!Array.isArray(listed)) throw new Error(`${role} is not in the predefined-role fixture`);
  return listed;
}

/** A project grant covers the project's resources; the log dataset may live in another project. */
function covers(grant: Grant, op: Operation): boolean {
  if (grant.sa !== op.sa || !permissionsOf(grant.role).includes(op.permission)) return false;
  if (grant.scope === "project") return op.scope !== "log_dataset";
  return grant.scope === op.scope && (grant.target ?? undefined) === op.target;
}

const describeOp = (op: Operation): string =>
  `${op.sa} ${op.what}: needs ${op.permission} on ${op.scope}${op.target ? ` ${op.target}` : ""}`;

test("every operation the code performs is allowed by a role Terraform grants to that identity", async () => {
  const all = grants(await loadTerraform());
  const missing = OPERATIONS.filter((op) => !all.some((g) => covers(g, op))).map(describeOp);
  assert.deepEqual(missing, [], "operations no granted role allows");
});

test("every grant is needed by some operation (least privilege)", async () => {
  const unused = grants(await loadTerraform()).filter((g) => !OPERATIONS.some((op) => covers(g, op)));
  assert.deepEqual(
    unused.map((g) => `${g.sa}: ${g.role} on ${g.scope}${g.target ? ` ${g.target}` : ""}`),
    [],
    "grants no operation needs",
  );
});

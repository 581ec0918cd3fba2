// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { type JsonObject, loadTerraform, resource, shape, str, strings } from "../../unit/terraform/hcl.js";
import { CONSOLE_OPERATIONS, type Operation } from "./permissions.js";
import type { Grant } from "./terraform-env.js";

const ROLE_PERMISSIONS = JSON.parse(
  readFileSync(fromRoot("test/fixtures/real/iam-roles/predefined-role-permissions.json"), "utf8"),
) as Record<string, string[] | string>;

function permissionsOf(role: string): readonly string[] {
  const listed = ROLE_PERMISSIONS[role];
  if (!Array.isArray(listed)) throw new Error(`${role} is not in the predefined-role fixture`);
  return listed;
}

/** The console's grants (terraform/console.tf), with the permissions each role holds. */
async function consoleGrants(): Promise<(Grant & { permissions: readonly string[] })[]> {
  const tf = await loadTerraform();
  const topic = async (r: JsonObject): Promise<string> => {
    const s = await shape(r.topic, "topic");
    const segments = (s as { ref: unknown[] }).ref;
    assert.deepEqual(segments.slice(0, 2), ["google_pubsub_topic", "topic"]);
    return String(segments[2]);
  };
  const reader = resource(tf, "google_project_iam_member.console_reader");
  const deleter = resource(tf, "google_project_iam_member.console_memory_delete");
  assert.equal(deleter.role, "${google_project_iam_custom_role.console_memory_delete[0].id}");
  const custom = resource(tf, "google_project_iam_custom_role.console_memory_delete");
  const publisher = resource(tf, "google_pubsub_topic_iam_member.console_publisher");
  const invoker = resource(tf, "google_cloud_run_v2_service_iam_member.console_iap_invoker");
  assert.equal(invoker.name, "${google_cloudfunctions2_function.console[0].service_config[0].service}");
  const predefined = (r: JsonObject) => permissionsOf(str(r.role, "role"));
  return [
    {
      sa: "console",
      scope: "project",
      target: null,
      role: str(reader.role, "role"),
      permissions: predefined(reader),
    },
    {
      sa: "console",
      scope: "project",
      target: null,
      role: "custom console_memory_delete",
      permissions: strings(custom.permissions, "permissions"),
    },
    {
      sa: "console",
      scope: "topic",
      target: await topic(publisher),
      role: str(publisher.role, "role"),
      permissions: predefined(publisher),
    },
    {
      sa: "iap",
      scope: "function",
      target: "console",
      role: str(invoker.role, "role"),
      permissions: predefined(invoker),
    },
  ];
}

const describeOp = (op: Operation): string =>
  `${op.sa} ${op.what}: needs ${op.permission} on ${op.scope}${op.target ? ` ${op.target}` : ""}`;

const consoleCovers = (g: Grant & { permissions: readonly string[] }, op: Operation): boolean =>
  g.sa === op.sa &&
  g.permissions.includes(op.permission) &&
  g.scope === op.scope &&
  (g.target ?? undefined) === op.target;

test("the console's identity may do what the console's code does, and nothing it does not", async () => {
  const held = await consoleGrants();
  assert.deepEqual(
    CONSOLE_OPERATIONS.filter((op) => !held.some((g) => consoleCovers(g, op))).map(describeOp),
    [],
    "console operations no granted role allows",
  );
  assert.deepEqual(
    held
      .filter((g) => !CONSOLE_OPERATIONS.some((op) => consoleCovers(g, op)))
      .map((g) => `${g.sa}: ${g.role}`),
    [],
    "console grants no operation needs",
  );
  // Read-mostly: of Firestore's writes, the console can delete (a memory) and nothing else.
  const firestoreWrites = held
    .flatMap((g) => g.permissions)
    .filter((p) => /^datastore\.entities\.(create|update|delete)$/.test(p));
  assert.deepEqual(firestoreWrites, ["datastore.entities.delete"]);
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ROLES } from "../../../functions/src/roles/index.js";
import { allStrings, arr, loadTerraform, local, norm, obj, resource, str, type Terraform } from "./hcl.js";

const tf: Terraform = await loadTerraform();

/**
 * Every grant each ferret service account holds, written out by hand: "<scope>[ <target>]: <role>".
 * Scopes: project, topic <topic>, dead_letter_topic <source topic>, secret <key in local.secrets>,
 * log_dataset, function <entry point>, source_bucket, gcf_sources_bucket. Changing a role in terraform/iam.tf must change this table too.
 */
const EXPECTED_GRANTS: Record<string, readonly string[]> = {
  ingest: [
    "project: roles/datastore.user",
    "topic investigation-events: roles/pubsub.publisher",
    "topic sweep-requests: roles/pubsub.publisher",
    "dead_letter_topic scc-findings: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  planner: [
    "project: roles/datastore.user",
    "project: roles/aiplatform.user",
    "secret otx-api-key: roles/secretmanager.secretAccessor",
    "topic investigation-events: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  stepExecutor: [
    "project: roles/datastore.user",
    "project: roles/aiplatform.user",
    "project: roles/bigquery.jobUser",
    "log_dataset: roles/bigquery.dataViewer",
    "secret otx-api-key: roles/secretmanager.secretAccessor",
    "topic agent-sessions: roles/pubsub.publisher",
    "topic investigation-events: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  reflector: [
    "project: roles/datastore.user",
    "project: roles/aiplatform.user",
    "secret otx-api-key: roles/secretmanager.secretAccessor",
    "topic investigation-events: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  concluder: [
    "project: roles/datastore.user",
    "project: roles/aiplatform.user",
    "topic investigation-events: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  compressor: [
    "project: roles/datastore.user",
    "project: roles/aiplatform.user",
    "topic investigation-events: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  responder: [
    "project: roles/datastore.user",
    "secret otx-api-key: roles/secretmanager.secretAccessor",
    "topic investigation-events: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  memoryIntrospector: [
    "project: roles/datastore.user",
    "project: roles/aiplatform.user",
    "dead_letter_topic agent-sessions: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  notifier: [
    "project: roles/datastore.user",
    "secret slack-bot-token: roles/secretmanager.secretAccessor",
    "dead_letter_topic investigation-events: roles/pubsub.publisher",
    "topic sweep-requests: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  sweep: [
    "project: roles/datastore.user",
    "project: roles/workflows.invoker",
    "topic investigation-events: roles/pubsub.publisher",
    "dead_letter_topic sweep-requests: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  slackEvents: [
    "project: roles/datastore.viewer",
    "topic analyst-actions: roles/pubsub.publisher",
    "secret slack-signing-secret: roles/secretmanager.secretAccessor",
    "secret slack-bot-token: roles/secretmanager.secretAccessor",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  analystActions: [
    "project: roles/datastore.user",
    "project: roles/aiplatform.user",
    "topic investigation-events: roles/pubsub.publisher",
    "secret slack-bot-token: roles/secretmanager.secretAccessor",
    "dead_letter_topic analyst-actions: roles/pubsub.publisher",
    "project: roles/telemetry.tracesWriter",
    "project: roles/monitoring.metricWriter",
  ],
  workflow: [
    "project: roles/logging.logWriter",
    "function planner: roles/run.invoker",
    "function stepExecutor: roles/run.invoker",
    "function reflector: roles/run.invoker",
    "function concluder: roles/run.invoker",
    "function compressor: roles/run.invoker",
    "function responder: roles/run.invoker",
  ],
  pubsubPush: [
    "function ingest: roles/run.invoker",
    "function memoryIntrospector: roles/run.invoker",
    "function notifier: roles/run.invoker",
    "function sweep: roles/run.invoker",
    "function analystActions: roles/run.invoker",
  ],
  build: [
    "project: roles/logging.logWriter",
    "project: roles/artifactregistry.writer",
    "source_bucket: roles/storage.objectAdmin",
    "gcf_sources_bucket: roles/storage.objectAdmin",
  ],
};

interface ScopeResource {
  readonly address: string;
  readonly targetAttr: string;
  readonly target: string;
  /** Defaults: role = "${each.value.role}", member = "${google_service_account.sa[each.value.sa].member}". */
  readonly role?: string;
  readonly memberAttr?: string;
  readonly member?: string;
}

/** The one resource applying each scope's rows of local.grants, and how it names its target. */
const SCOPE_RESOURCES: Record<string, ScopeResource> = {
  project: { address: "google_project_iam_member.grant", targetAttr: "project", target: "${var.project_id}" },
  topic: {
    address: "google_pubsub_topic_iam_member.grant",
    targetAttr: "topic",
    target: "${google_pubsub_topic.topic[each.value.target].name}",
  },
  dead_letter_topic: {
    address: "google_pubsub_topic_iam_member.dead_letter_grant",
    targetAttr: "topic",
    target: "${google_pubsub_topic.dead_letter[each.value.target].name}",
  },
  secret: {
    address: "google_secret_manager_secret_iam_member.grant",
    targetAttr: "secret_id",
    target: "${google_secret_manager_secret.secret[each.value.target].secret_id}",
  },
  log_dataset: {
    // An ACL entry, so the dataset's authorized views survive; legacy role names avoid a perpetual diff.
    address: "google_bigquery_dataset_access.grant",
    targetAttr: "dataset_id",
    target: "${var.log_dataset_id}",
    role: "${local.bigquery_legacy_roles[each.value.role]}",
    memberAttr: "user_by_email",
    member: "${google_service_account.sa[each.value.sa].email}",
  },
  function: {
    address: "google_cloud_run_v2_service_iam_member.grant",
    targetAttr: "name",
    target: "${google_cloudfunctions2_function.function[each.value.target].service_config[0].service}",
  },
  source_bucket: {
    address: "google_storage_bucket_iam_member.grant",
    targetAttr: "bucket",
    target: "${google_storage_bucket.source.name}",
  },
  // A project-level member limited by an IAM condition to the gen2 staging bucket, which Cloud
  // Functions creates itself on the first deployment (so no bucket-level grant can precede it).
  gcf_sources_bucket: {
    address: "google_project_iam_member.gcf_sources",
    targetAttr: "project",
    target: "${var.project_id}",
  },
};

/** IAM resources that grant to Google service agents rather than to ferret's accounts. */
const SERVICE_AGENT_GRANTS: Record<string, string> = {
  "google_pubsub_topic_iam_member.dead_letter_publisher": "${local.pubsub_service_agent}",
  "google_pubsub_subscription_iam_member.dead_letter_subscriber": "${local.pubsub_service_agent}",
  "google_service_account_iam_member.pubsub_token_creator": "${local.pubsub_service_agent}",
  "google_pubsub_topic_iam_member.scc_publisher":
    "serviceAccount:${google_scc_v2_organization_notification_config.findings[0].service_account}",
  // IAP calls the console's service as its service agent (terraform/console.tf).
  "google_cloud_run_v2_service_iam_member.console_iap_invoker":
    "${google_project_service_identity.iap[0].member}",
};

/** IAM resources outside local.grants that grant something else than a predefined role to a ferret account. */
const OTHER_GRANTS: Record<string, string> = {
  // The one public member: Slack calls slackEvents without a Google identity (decision 0018).
  "google_cloud_run_v2_service_iam_member.public_invoker": "allUsers",
  // SCC findings live under the organization: the write-back custom role is granted there.
  "google_organization_iam_member.scc_writeback": '${google_service_account.sa["analystActions"].member}',
  // Response actions act in any project of the organization; only the responder runs them.
  "google_organization_iam_member.response_actions": '${google_service_account.sa["responder"].member}',
  // The step executor previews a held call (the reads only) for the person who decides.
  "google_organization_iam_member.response_action_previews":
    '${google_service_account.sa["stepExecutor"].member}',
  // Only the worker that records Approve / Deny may wake a paused workflow; it also starts
  // Re-investigate's execution (approvals.tf).
  "google_project_iam_member.approval_callbacks": '${google_service_account.sa["analystActions"].member}',
  // The optional web console's own account (console.tf; console.test.ts pins what it holds).
  "google_project_iam_member.console_reader": "${google_service_account.console[0].member}",
  "google_project_iam_member.console_memory_delete": "${google_service_account.console[0].member}",
  "google_pubsub_topic_iam_member.console_publisher": "${google_service_account.console[0].member}",
};

/**
 * The one authoritative IAM resource: who may pass Identity-Aware Proxy to the console is
 * exactly var.console_members, on a backend service ferret creates and owns (console.tf).
 */
const AUTHORITATIVE_BINDINGS: Record<string, string> = {
  "google_iap_web_backend_service_iam_binding.console_access": "${var.console_members}",
};

interface Grant {
  readonly sa: string;
  readonly scope: string;
  readonly target: string | null;
  readonly role: string;
}

function grants(): Grant[] {
  return arr(local(tf, "grants"), "local.grants").map((g, i) => {
    const row = obj(g, `local.grants[${i}]`);
    const target = row.target;
    if (target !== null && typeof target !== "string") throw new Error(`local.grants[${i}].target`);
    return { sa: str(row.sa, "sa"), scope: str(row.scope, "scope"), target, role: str(row.role, "role") };
  });
}

const describeGrant = (g: Grant): string => `${g.scope}${g.target === null ? "" : ` ${g.target}`}: ${g.role}`;

test("each service account holds exactly the expected grants", () => {
  const accounts = obj(local(tf, "service_accounts"), "local.service_accounts");
  assert.deepEqual(Object.keys(accounts).sort(), Object.keys(EXPECTED_GRANTS).sort(), "service accounts");

  const actual = new Map<string, string[]>();
  for (const g of grants()) actual.set(g.sa, [...(actual.get(g.sa) ?? []), describeGrant(g)]);
  for (const sa of actual.keys()) assert.ok(sa in EXPECTED_GRANTS, `grant to unknown service account ${sa}`);
  for (const [sa, expected] of Object.entries(EXPECTED_GRANTS)) {
    const held = actual.get(sa) ?? [];
    assert.equal(new Set(held).size, held.length, `${sa}: duplicate grant`);
    assert.deepEqual([...held].sort(), [...expected].sort(), `${sa}: grants`);
  }
});

test("grants reference things that exist", () => {
  const topics = new Set(arr(local(tf, "topics"), "local.topics"));
  const secrets = obj(local(tf, "secrets"), "local.secrets");
  const functions = obj(local(tf, "functions"), "local.functions");
  for (const g of grants()) {
    assert.ok(g.scope in SCOPE_RESOURCES, `${g.sa}: unknown scope ${g.scope}`);
    assert.match(g.role, /^roles\/[a-zA-Z.]+$/, `${g.sa}: predefined role`);
    const needsTarget = ["topic", "dead_letter_topic", "secret", "function"].includes(g.scope);
    assert.equal(g.target !== null, needsTarget, `${describeGrant(g)}: target`);
    if (g.scope === "topic" || g.scope === "dead_letter_topic")
      assert.ok(topics.has(g.target), `${describeGrant(g)}: no such topic`);
    if (g.scope === "secret") assert.ok(String(g.target) in secrets, `${describeGrant(g)}: no such secret`);
    if (g.scope === "function")
      assert.ok(String(g.target) in functions, `${describeGrant(g)}: no such function`);
  }
});

test("one non-authoritative member resource per scope applies local.grants to the granted account", () => {
  const rows = grants();
  for (const [scope, spec] of Object.entries(SCOPE_RESOURCES)) {
    const r = resource(tf, spec.address);
    const forEach = norm(str(r.for_each, `${spec.address}.for_each`));
    // A secret's grants apply only while it is mounted (local.enabled_secrets).
    const m =
      /^\$\{\{ for g in local\.grants : "([^"]+)" => g if g\.scope == "([a-z_]+)"( && contains\(local\.enabled_secrets, g\.target\))? \}\}$/.exec(
        forEach,
      );
    assert.equal(
      Boolean(m?.[3]),
      scope === "secret",
      `${spec.address}: only secret grants wait for the secret to be enabled`,
    );
    assert.ok(m, `${spec.address}: for_each must filter local.grants, got ${forEach}`);
    assert.equal(m[2], scope, `${spec.address}: applies scope ${scope}`);
    assert.equal(r.role, spec.role ?? "${each.value.role}", `${spec.address}: role`);
    assert.equal(
      r[spec.memberAttr ?? "member"],
      spec.member ?? "${google_service_account.sa[each.value.sa].member}",
      `${spec.address}: member`,
    );
    assert.equal(r[spec.targetAttr], spec.target, `${spec.address}: target`);

    // for_each keys must be unique or the plan fails.
    const keyTemplate = m[1] ?? "";
    const keys = rows
      .filter((g) => g.scope === scope)
      .map((g) =>
        keyTemplate.replace(/\$\{g\.(sa|role|target)\}/g, (_x, attr: string) =>
          String(g[attr as keyof Grant]),
        ),
      );
    assert.equal(new Set(keys).size, keys.length, `${spec.address}: duplicate for_each keys`);
  }
});

test("no other IAM resources, nothing authoritative but the console's IAP accessors, and no public member but the one allowed", () => {
  const known = new Set([
    ...Object.values(SCOPE_RESOURCES).map((s) => s.address),
    ...Object.keys(SERVICE_AGENT_GRANTS),
    ...Object.keys(OTHER_GRANTS),
    ...Object.keys(AUTHORITATIVE_BINDINGS),
  ]);
  for (const [address, body] of tf.resources) {
    if (!/_iam_(member|binding|policy|audit_config)\.|^google_bigquery_dataset_access\./.test(address))
      continue;
    assert.ok(known.has(address), `unexpected IAM resource ${address}`);
    if (address in AUTHORITATIVE_BINDINGS) {
      assert.equal(body.members, AUTHORITATIVE_BINDINGS[address], `${address}: members`);
      continue;
    }
    assert.match(address, /_iam_member\.|_dataset_access\./, `${address}: only non-authoritative grants`);
    const expectedMember = SERVICE_AGENT_GRANTS[address] ?? OTHER_GRANTS[address];
    if (expectedMember !== undefined) assert.equal(body.member, expectedMember, `${address}: member`);
  }
  for (const address of known) resource(tf, address);

  // allUsers appears exactly once, as the member of the public invoker binding; never
  // allAuthenticatedUsers.
  const publicStrings: string[] = [];
  for (const [file, parsed] of tf.files) {
    for (const s of allStrings(parsed)) {
      assert.doesNotMatch(s, /allAuthenticatedUsers/, `${file}: public principal`);
      if (/allUsers/.test(s)) publicStrings.push(`${file}: ${s}`);
    }
  }
  assert.deepEqual(publicStrings, ["iam.tf: allUsers"], "allUsers only in the public invoker binding");
  const legacy = obj(local(tf, "bigquery_legacy_roles"), "local.bigquery_legacy_roles");
  for (const g of grants().filter((x) => x.scope === "log_dataset")) {
    assert.equal(legacy[g.role], g.role === "roles/bigquery.dataViewer" ? "READER" : undefined, g.role);
  }
  const scc = resource(tf, "google_pubsub_topic_iam_member.scc_publisher");
  assert.equal(scc.topic, '${google_pubsub_topic.topic["scc-findings"].name}');
  assert.equal(scc.role, "roles/pubsub.publisher");
});

test("allUsers may only invoke the public functions, only slackEvents is public, and only when slack_events_public", () => {
  const binding = resource(tf, "google_cloud_run_v2_service_iam_member.public_invoker");
  assert.equal(
    norm(str(binding.for_each, "for_each")),
    "${var.slack_events_public ? local.public_functions : {}}",
  );
  assert.equal(binding.role, "roles/run.invoker", "invoke, nothing else");
  assert.equal(binding.member, "allUsers");
  assert.equal(
    binding.name,
    "${google_cloudfunctions2_function.function[each.key].service_config[0].service}",
  );
  assert.equal(
    norm(str(local(tf, "public_functions"), "local.public_functions")),
    "${{ for key, fn in local.functions : key => fn if fn.public }}",
  );
  const table = obj(local(tf, "functions"), "local.functions");
  const publicOnes = Object.entries(table).flatMap(([name, row]) =>
    obj(row, name).public === true ? [name] : [],
  );
  assert.deepEqual(publicOnes, ["slackEvents"], "the one public function");
  for (const [name, row] of Object.entries(table))
    assert.equal(typeof obj(row, name).public, "boolean", `${name}: public is set`);
  // The public function is the one that checks Slack's signature before anything else.
  const ep = ROLES.find((e) => e.name === "slackEvents");
  assert.ok(ep && ep.trigger === "http" && ep.calledBy === "slack");
  assert.equal(tf.variables.get("slack_events_public")?.default, true);
});

test("the SCC write-back role is granted at organization scope to the analystActions worker only", () => {
  const grant = resource(tf, "google_organization_iam_member.scc_writeback");
  assert.equal(grant.count, "${var.enable_scc_writeback ? 1 : 0}");
  assert.equal(grant.org_id, "${var.organization_id}");
  assert.equal(grant.role, "${google_organization_iam_custom_role.scc_writeback[0].name}");
  assert.equal(grant.member, '${google_service_account.sa["analystActions"].member}');
});

test("only the workflow invokes the workflow's functions and only the push identity the Pub/Sub-fed ones", () => {
  const invokers = new Map<string, string[]>();
  for (const g of grants()) {
    if (g.scope !== "function") continue;
    assert.equal(g.role, "roles/run.invoker");
    invokers.set(String(g.target), [...(invokers.get(String(g.target)) ?? []), g.sa]);
  }
  for (const ep of ROLES) {
    // slackEvents has no invoker in local.grants: Slack reaches it through the public binding.
    const expected =
      ep.trigger === "pubsub" ? ["pubsubPush"] : ep.calledBy === "workflow" ? ["workflow"] : undefined;
    assert.deepEqual(invokers.get(ep.name), expected, `${ep.name}: invokers`);
  }
  assert.equal(
    resource(tf, "google_workflows_workflow.investigate").service_account,
    '${google_service_account.sa["workflow"].id}',
  );
});

test("each Pub/Sub-fed function may publish to its own dead-letter topic (settle() parks poison messages there)", () => {
  // functions/src/entry/pubsub-settle.ts publishes a message it can never process to
  // deadLetterTopic(topic) itself; without publisher there it is retried for an hour instead.
  for (const ep of ROLES) {
    if (ep.trigger !== "pubsub") continue;
    const held = grants().filter((g) => g.sa === ep.name && g.scope === "dead_letter_topic");
    assert.deepEqual(
      held.map((g) => `${g.target}: ${g.role}`),
      [`${ep.topic}: roles/pubsub.publisher`],
      `${ep.name}: publisher on ${ep.topic}-dead-letter`,
    );
  }
  const r = resource(tf, "google_pubsub_topic_iam_member.dead_letter_grant");
  assert.equal(r.topic, "${google_pubsub_topic.dead_letter[each.value.target].name}");
});

test("the build account may read the gen2 staging bucket gcf-v2-sources-<project number>-<region>", () => {
  // Gen2 builds fetch the source from the staging bucket, not from ours
  // (hashicorp/terraform-provider-google#20571: "Access to bucket gcf-v2-sources-… denied").
  const r = resource(tf, "google_project_iam_member.gcf_sources");
  assert.equal(r.role, "${each.value.role}");
  const [condition] = arr(r.condition, "gcf_sources.condition").map((c) => obj(c, "condition"));
  assert.ok(condition, "the grant is conditioned on the staging bucket");
  assert.equal(
    norm(str(condition.expression, "condition.expression")),
    'resource.name.startsWith("projects/_/buckets/${local.gcf_sources_bucket}")',
  );
  assert.equal(
    local(tf, "gcf_sources_bucket"),
    "gcf-v2-sources-${data.google_project.ferret.number}-${var.region}",
  );
  assert.ok(tf.data.has("google_project.ferret"), "data.google_project.ferret gives the project number");
});

test("only the analystActions worker may send approval callbacks, with a role holding callbacks.send and executions.create alone", () => {
  const role = resource(tf, "google_project_iam_custom_role.approval_callbacks");
  assert.deepEqual(role.permissions, ["workflows.callbacks.send", "workflows.executions.create"]);
  const binding = resource(tf, "google_project_iam_member.approval_callbacks");
  assert.equal(binding.role, "${google_project_iam_custom_role.approval_callbacks.id}");
  assert.equal(binding.member, '${google_service_account.sa["analystActions"].member}');
  // roles/workflows.invoker could call back too: only the one launcher holds it, the sweep,
  // which starts what the governor's queue releases and reads no person's input.
  const grants = arr(local(tf, "grants"), "local.grants").map((g) => obj(g, "grant"));
  assert.deepEqual(
    grants
      .filter((g) => g.role === "roles/workflows.invoker")
      .map((g) => g.sa)
      .sort(),
    ["sweep"],
  );
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ORDERED_TOPICS } from "../../../functions/src/platform/topics.js";
import { ROLES } from "../../../functions/src/roles/index.js";
import {
  arr,
  block,
  blocks,
  call,
  EACH_KEY,
  eachValue,
  isObject,
  type JsonObject,
  loadTerraform,
  local,
  norm,
  obj,
  REPO_ROOT,
  ref,
  resource,
  resourcesOfType,
  shape,
  str,
  strings,
  type Terraform,
} from "./hcl.js";

const tf: Terraform = await loadTerraform();
const ENTRY_POINT_NAMES = ROLES.map((ep) => ep.name).sort();
const PUBSUB_ENTRY_POINTS: readonly string[] = ROLES.flatMap((ep) =>
  ep.trigger === "pubsub" ? [ep.name] : [],
);

const fn = (): JsonObject => resource(tf, "google_cloudfunctions2_function.function");
const functionTable = (): JsonObject => obj(local(tf, "functions"), "local.functions");
/**
 * The web console's entry point (functions/src/index.ts registers it with ff.http): deployed by
 * terraform/console.tf, only with enable_console, and not a ROLES entry (the local stack
 * does not start it; `ferret console` serves it). test/unit/terraform/console.test.ts covers it.
 */
const CONSOLE = "console";
const DEPLOYED_NAMES = [...ENTRY_POINT_NAMES, CONSOLE].sort();

test("every entry point in ROLES has exactly one Cloud Function with that entry point, and vice versa", async () => {
  const declared = [...resourcesOfType(tf, "google_cloudfunctions2_function").keys()].sort();
  assert.deepEqual(
    declared,
    ["console", "function"],
    "every function must come from the one for_each over local.functions, but the optional console",
  );
  const consoleFn = resource(tf, "google_cloudfunctions2_function.console");
  assert.deepEqual(
    await shape(block(consoleFn, "build_config", "console").entry_point, "console entry_point"),
    ref("local", "console", "entry_point"),
  );
  assert.equal(obj(local(tf, "console"), "local.console").entry_point, CONSOLE);
  assert.match(
    readFileSync(join(REPO_ROOT, "functions", "src", "index.ts"), "utf8"),
    /\bff\.http\(\s*"console"\s*,/,
    "functions/src/index.ts exports the console's entry point",
  );
  assert.ok(
    !(ENTRY_POINT_NAMES as readonly string[]).includes(CONSOLE),
    "the console is not one of the always-deployed functions",
  );

  const f = fn();
  assert.deepEqual(await shape(f.for_each, "function.for_each"), ref("local", "functions"));
  assert.deepEqual(
    await shape(block(f, "build_config", "function").entry_point, "entry_point"),
    EACH_KEY,
    "entry_point is the table key",
  );
  assert.equal(
    f.event_trigger,
    undefined,
    "Pub/Sub-fed functions are reached by push subscriptions, not Eventarc",
  );

  const table = functionTable();
  assert.deepEqual(Object.keys(table).sort(), ENTRY_POINT_NAMES, "local.functions keys vs ROLES");
  for (const ep of ROLES) {
    const row = obj(table[ep.name], `local.functions.${ep.name}`);
    assert.equal(row.trigger, ep.trigger, `${ep.name}: trigger`);
    assert.equal(row.topic, ep.trigger === "pubsub" ? ep.topic : null, `${ep.name}: topic`);
    assert.equal(
      row.ordered,
      ep.trigger === "pubsub" && ORDERED_TOPICS.has(ep.topic),
      `${ep.name}: ordered exactly for the code's ORDERED_TOPICS`,
    );
  }
});

test("functions are built from one archive of the repository root on nodejs22", async () => {
  // The console too: the same archive, the same runtime, the same build account.
  for (const address of [
    "google_cloudfunctions2_function.function",
    "google_cloudfunctions2_function.console",
  ]) {
    const build = block(resource(tf, address), "build_config", address);
    assert.equal(build.runtime, "nodejs22", `${address}: runtime`);
    const storage = block(block(build, "source", "build_config"), "storage_source", "build_config.source");
    assert.deepEqual(
      await shape(storage.bucket, "bucket"),
      ref("google_storage_bucket", "source", "name"),
      `${address}: bucket`,
    );
    assert.deepEqual(
      await shape(storage.object, "object"),
      ref("google_storage_bucket_object", "source", "name"),
      `${address}: object`,
    );
    assert.deepEqual(
      await shape(build.service_account, "build service_account"),
      ref("google_service_account", "sa", "build", "id"),
      `${address}: built by the build account`,
    );
  }

  const object = resource(tf, "google_storage_bucket_object.source");
  assert.deepEqual(
    await shape(object.source, "object.source"),
    ref("data", "archive_file", "source", "output_path"),
  );
  assert.match(str(object.name, "object name"), /\$\{data\.archive_file\.source\.output_(sha256|md5)\}/);

  const archive = tf.data.get("archive_file.source");
  assert.ok(archive, "data.archive_file.source is declared");
  assert.equal(archive.type, "zip");
  assert.deepEqual(
    await shape(archive.source_dir, "source_dir"),
    call("abspath", { template: [ref("path", "module"), "/.."] }),
    "the archive is the repository root",
  );
  assert.deepEqual(await shape(archive.excludes, "excludes"), ref("local", "source_excludes"));

  const excludes = strings(local(tf, "source_excludes"), "local.source_excludes");
  for (const dir of ["node_modules", "dist", "test", "examples", "bench", ".git", "terraform"]) {
    assert.ok(excludes.includes(dir) && excludes.includes(`${dir}/**`), `the archive must leave out ${dir}/`);
  }
  const neededByTheBuild = ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"];
  // console/ holds the console's views and stylesheet, read at run time (fromRoot("console/…")).
  for (const path of [...neededByTheBuild, "functions", "workflows", "prompts", "console"]) {
    assert.ok(
      !excludes.some((pattern) => pattern.split("/")[0] === path),
      `${path} must stay in the archive`,
    );
  }

  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
    main?: string;
    scripts?: Record<string, string>;
  };
  assert.equal(
    pkg.main,
    "dist/functions/src/index.js",
    "package.json main is what functions-framework loads",
  );
  assert.ok(
    pkg.scripts?.["gcp-build"],
    "package.json needs a gcp-build script so Cloud Build compiles TypeScript",
  );

  const bucket = resource(tf, "google_storage_bucket.source");
  assert.equal(bucket.public_access_prevention, "enforced");
  assert.equal(bucket.uniform_bucket_level_access, true);
});

test("every function but the public one is internal-only, runs as its own service account and is built by the build account", async () => {
  const f = fn();
  const service = block(f, "service_config", "function");
  // Only a function marked public (slackEvents, decision 0018) accepts traffic from the internet.
  assert.deepEqual(await shape(service.ingress_settings, "ingress_settings"), {
    cond: eachValue("public"),
    ifTrue: "ALLOW_ALL",
    ifFalse: "ALLOW_INTERNAL_ONLY",
  });
  // The one function Slack calls is the public one (ROLES' calledBy "slack").
  for (const ep of ROLES)
    assert.equal(
      obj(functionTable()[ep.name], ep.name).public,
      ep.trigger === "http" && ep.calledBy === "slack",
      `${ep.name}: public`,
    );
  assert.deepEqual(
    await shape(service.service_account_email, "service_account_email"),
    ref("google_service_account", "sa", EACH_KEY, "email"),
  );
  assert.deepEqual(
    await shape(block(f, "build_config", "function").service_account, "build service_account"),
    ref("google_service_account", "sa", "build", "id"),
  );

  const accounts = obj(local(tf, "service_accounts"), "local.service_accounts");
  const accountIds = Object.values(accounts).map((a, i) => str(obj(a, `sa ${i}`).account_id, "account_id"));
  assert.equal(new Set(accountIds).size, accountIds.length, "account_ids are unique");
  for (const id of accountIds) assert.match(id, /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, `account_id ${id}`);
  for (const name of ENTRY_POINT_NAMES)
    assert.ok(isObject(accounts[name]), `${name} has its own service account`);

  const names = Object.values(functionTable()).map((row, i) => str(obj(row, `row ${i}`).name, "name"));
  assert.equal(new Set(names).size, names.length, "function names are unique");
  for (const name of names) assert.match(name, /^[a-z][a-z0-9-]{0,61}[a-z0-9]$/, `function name ${name}`);
});

test("memory, timeout and instance bounds are per-function variables with sane defaults", async () => {
  const service = block(fn(), "service_config", "function");
  const setting = (attr: string) => ref("var", "functions", EACH_KEY, attr);
  assert.deepEqual(await shape(service.available_memory, "available_memory"), setting("memory"));
  assert.deepEqual(await shape(service.timeout_seconds, "timeout_seconds"), setting("timeout_seconds"));
  assert.deepEqual(await shape(service.min_instance_count, "min_instance_count"), setting("min_instances"));
  assert.deepEqual(await shape(service.max_instance_count, "max_instance_count"), setting("max_instances"));

  const variable = tf.variables.get("functions");
  assert.ok(variable, "variable functions is declared");
  assert.deepEqual(variable.default, {}, "every attribute has its own default");
  const type = str(variable.type, "var.functions type");
  const perFunction = [...type.matchAll(/(\w+)\s*=\s*optional\(object\(\{([^}]*)\}\),\s*\{\}\)/g)];
  assert.deepEqual(
    perFunction.map((m) => m[1]).sort(),
    ENTRY_POINT_NAMES,
    "var.functions has one entry per entry point",
  );

  for (const [, name, body = ""] of perFunction) {
    const memory = /memory\s*=\s*optional\(string,\s*"(\d+)(Mi|Gi)"\)/.exec(body);
    assert.ok(memory, `${name}: memory default`);
    const mib = Number(memory[1]) * (memory[2] === "Gi" ? 1024 : 1);
    assert.ok(mib >= 256 && mib <= 8192, `${name}: memory default ${mib}Mi`);
    const number = (attr: string): number => {
      const m = new RegExp(`${attr}\\s*=\\s*optional\\(number,\\s*(\\d+)\\)`).exec(body);
      assert.ok(m, `${name}: ${attr} default`);
      return Number(m[1]);
    };
    const timeout = number("timeout_seconds");
    const limit = PUBSUB_ENTRY_POINTS.includes(name ?? "") ? 600 : 1800;
    assert.ok(timeout >= 30 && timeout <= limit, `${name}: timeout default ${timeout}s (limit ${limit}s)`);
    assert.ok(number("max_instances") >= 1, `${name}: max_instances default`);
    assert.equal(number("min_instances"), 0, `${name}: scale to zero by default`);
  }
});

const COMMON_ENV = ["GOOGLE_CLOUD_PROJECT", "FERRET_FIRESTORE_DATABASE"];
const MODEL_ENV = [
  "FERRET_MODEL_PROVIDER",
  "GOOGLE_GENAI_USE_VERTEXAI",
  "GOOGLE_CLOUD_LOCATION",
  "FERRET_GEMINI_MODEL",
  "FERRET_GEMINI_LITE_MODEL",
  "FERRET_GEMINI_TIMEOUT_MS",
];
const LOG_ENV = [
  "FERRET_LOG_WAREHOUSE",
  "FERRET_BIGQUERY_PROJECT",
  "FERRET_BIGQUERY_DATASET",
  "FERRET_BIGQUERY_MAX_BYTES_BILLED",
];
const SLACK_ENV = ["FERRET_SLACK_CHANNEL", "FERRET_SLACK_CLAIM_STALE_SECONDS"];
const ANALYST_ENV = ["FERRET_SLACK_ALLOWED_USERS", "FERRET_SLACK_ALLOWED_USER_GROUPS"];
const SCC_ENV = ["FERRET_SCC_WRITEBACK", "FERRET_SCC_ANALYST_MUTE_AND_STATE"];
// The response actions the registry offers (terraform/response-actions.tf).
const ACTIONS_ENV = ["FERRET_ACTIONS_ENABLED", "FERRET_ACTIONS_DENY_EGRESS_TAG"];
const APPROVAL_ENV = ["FERRET_SLACK_APPROVERS", "FERRET_APPROVAL_TIMEOUT_SECONDS"];
// Every function's spans and metrics (docs/decisions/0055); the console builds no telemetry.
const TELEMETRY_ENV = ["FERRET_TELEMETRY_EXPORTER", "FERRET_TRACE_SAMPLE_RATIO"];
const EXPECTED_ENV: Record<string, readonly string[]> = {
  ingest: [
    ...COMMON_ENV,
    ...TELEMETRY_ENV,
    "FERRET_WORKFLOW_NAME",
    "FERRET_WORKFLOW_LOCATION",
    "FERRET_GOVERNOR_MAX_CONCURRENT",
    "FERRET_GOVERNOR_PER_HOUR",
    "FERRET_GOVERNOR_TOKENS_PER_HOUR",
    "FERRET_GOVERNOR_TOKENS_PER_DAY",
    "FERRET_GOVERNOR_GROUP_WINDOW_MINUTES",
  ],
  planner: [...COMMON_ENV, ...TELEMETRY_ENV, ...MODEL_ENV, ...LOG_ENV, "FERRET_OTX_ENABLED", ...ACTIONS_ENV],
  stepExecutor: [
    ...COMMON_ENV,
    ...TELEMETRY_ENV,
    ...MODEL_ENV,
    ...LOG_ENV,
    "FERRET_OTX_ENABLED",
    ...ACTIONS_ENV,
  ],
  reflector: [
    ...COMMON_ENV,
    ...TELEMETRY_ENV,
    ...MODEL_ENV,
    ...LOG_ENV,
    "FERRET_OTX_ENABLED",
    ...ACTIONS_ENV,
  ],
  concluder: [...COMMON_ENV, ...TELEMETRY_ENV, ...MODEL_ENV],
  compressor: [...COMMON_ENV, ...TELEMETRY_ENV, ...MODEL_ENV],
  responder: [
    ...COMMON_ENV,
    ...TELEMETRY_ENV,
    ...MODEL_ENV,
    ...LOG_ENV,
    "FERRET_OTX_ENABLED",
    ...ACTIONS_ENV,
  ],
  memoryIntrospector: [...COMMON_ENV, ...TELEMETRY_ENV, ...MODEL_ENV],
  notifier: [...COMMON_ENV, ...TELEMETRY_ENV, ...SLACK_ENV, ...SCC_ENV, ...APPROVAL_ENV],
  // Sweeps with the agent's default deadline; launches what the governor's queue releases.
  sweep: [
    ...COMMON_ENV,
    ...TELEMETRY_ENV,
    "FERRET_WORKFLOW_NAME",
    "FERRET_WORKFLOW_LOCATION",
    "FERRET_GOVERNOR_MAX_CONCURRENT",
    "FERRET_GOVERNOR_PER_HOUR",
    "FERRET_GOVERNOR_TOKENS_PER_HOUR",
    "FERRET_GOVERNOR_TOKENS_PER_DAY",
    "FERRET_GOVERNOR_GROUP_WINDOW_MINUTES",
  ],
  slackEvents: [...COMMON_ENV, ...TELEMETRY_ENV, ...SLACK_ENV, ...ANALYST_ENV, ...APPROVAL_ENV],
  // Re-investigate starts the workflow; thread questions are answered by the model.
  analystActions: [
    ...COMMON_ENV,
    ...TELEMETRY_ENV,
    ...SLACK_ENV,
    ...ANALYST_ENV,
    ...SCC_ENV,
    ...APPROVAL_ENV,
    "FERRET_WORKFLOW_NAME",
    "FERRET_WORKFLOW_LOCATION",
    ...MODEL_ENV,
  ],
  // Reads Firestore, shows the governor's limits, links to the Slack thread; IAP identity.
  console: [
    ...COMMON_ENV,
    "FERRET_GOVERNOR_MAX_CONCURRENT",
    "FERRET_GOVERNOR_PER_HOUR",
    "FERRET_GOVERNOR_TOKENS_PER_HOUR",
    "FERRET_GOVERNOR_TOKENS_PER_DAY",
    "FERRET_GOVERNOR_GROUP_WINDOW_MINUTES",
    "FERRET_SLACK_CHANNEL",
    "FERRET_CONSOLE_AUTH",
    "FERRET_CONSOLE_IAP_AUDIENCE",
  ],
};
const EXPECTED_SECRET_ENV: Record<string, Record<string, string>> = {
  // Planner and reflector build the same tool registry, and the OTX adapter needs its key there too.
  planner: { OTX_API_KEY: "otx-api-key" },
  stepExecutor: { OTX_API_KEY: "otx-api-key" },
  reflector: { OTX_API_KEY: "otx-api-key" },
  // The responder runs approved calls through the same registry.
  responder: { OTX_API_KEY: "otx-api-key" },
  notifier: { SLACK_BOT_TOKEN: "slack-bot-token" },
  // The endpoint verifies Slack's signature; both use the bot token (modal, user groups, thread edits).
  slackEvents: { SLACK_SIGNING_SECRET: "slack-signing-secret", SLACK_BOT_TOKEN: "slack-bot-token" },
  analystActions: { SLACK_BOT_TOKEN: "slack-bot-token" },
};

test("environment variables: the contract's names, each function getting what it needs", () => {
  const groups = obj(local(tf, "env_groups"), "local.env_groups");
  const perFunction = obj(local(tf, "function_env_groups"), "local.function_env_groups");
  assert.deepEqual(Object.keys(perFunction).sort(), DEPLOYED_NAMES);
  assert.deepEqual(
    Object.keys(EXPECTED_ENV).sort(),
    DEPLOYED_NAMES,
    "an expectation for every entry point, the console's included",
  );
  for (const [name, expected] of Object.entries(EXPECTED_ENV)) {
    const names = strings(perFunction[name], `function_env_groups.${name}`).flatMap((group) =>
      Object.keys(obj(groups[group], `env_groups.${group}`)),
    );
    assert.deepEqual(names.sort(), [...expected].sort(), `${name}: environment variable names`);
  }

  const value = (group: string, name: string): unknown => obj(groups[group], group)[name];
  assert.equal(value("model", "FERRET_MODEL_PROVIDER"), "gemini");
  assert.equal(value("model", "GOOGLE_GENAI_USE_VERTEXAI"), "true");
  assert.equal(value("log_warehouse", "FERRET_LOG_WAREHOUSE"), "bigquery");
  assert.equal(value("intel", "FERRET_OTX_ENABLED"), "${tostring(var.enable_otx)}");

  assert.equal(value("analysts", "FERRET_SLACK_ALLOWED_USERS"), '${join(",", var.slack_allowed_users)}');
  assert.equal(value("scc_writeback", "FERRET_SCC_WRITEBACK"), "${tostring(var.enable_scc_writeback)}");
  assert.equal(
    value("scc_writeback", "FERRET_SCC_ANALYST_MUTE_AND_STATE"),
    "${tostring(var.enable_scc_writeback && var.scc_analyst_mute_and_state)}",
  );

  // Empty values are left unset: ferret's configuration refuses a list variable without an entry.
  assert.equal(
    norm(str(local(tf, "function_env"), "local.function_env")),
    '${{ for key, groups in local.function_env_groups : key => { for name, value in merge([for group in groups : local.env_groups[group]]...) : name => value if value != "" } }}',
  );
  assert.equal(
    block(fn(), "service_config", "function").environment_variables,
    "${local.function_env[each.key]}",
  );
  assert.equal(
    block(resource(tf, "google_cloudfunctions2_function.console"), "service_config", "console")
      .environment_variables,
    '${local.function_env["console"]}',
    "the console's environment comes from the same contract",
  );

  // The contract is one locals block, so it is easy to align with the code.
  const mainLocals = arr(tf.files.get("main.tf")?.locals, "main.tf locals").map((b) => obj(b, "locals"));
  const contract = ["env_groups", "function_env_groups", "secret_env", "function_env"];
  assert.ok(
    mainLocals.some((b) => contract.every((name) => name in b)),
    `${contract.join(", ")} share one locals block in main.tf`,
  );
});

test("secrets reach only the functions that read them, as secret environment variables", () => {
  const secretEnv = obj(local(tf, "secret_env"), "local.secret_env");
  assert.deepEqual(Object.keys(secretEnv).sort(), DEPLOYED_NAMES);
  const secrets = obj(local(tf, "secrets"), "local.secrets");
  for (const name of DEPLOYED_NAMES) {
    const actual = obj(secretEnv[name], `secret_env.${name}`);
    assert.deepEqual(actual, EXPECTED_SECRET_ENV[name] ?? {}, `${name}: secret environment variables`);
    for (const key of Object.values(actual))
      assert.ok(typeof key === "string" && key in secrets, `${key} exists`);
  }

  const service = block(fn(), "service_config", "function");
  const dynamicBlock = obj(service.dynamic, "service_config.dynamic");
  const secretBlocks = blocks(dynamicBlock, "secret_environment_variables", "dynamic");
  assert.equal(secretBlocks.length, 1);
  const [secretBlock] = secretBlocks;
  assert.ok(secretBlock);
  assert.equal(
    norm(str(secretBlock.for_each, "for_each")),
    "${{ for env, secret in local.secret_env[each.key] : env => secret if contains(local.enabled_secrets, secret) }}",
  );
  const content = block(secretBlock, "content", "secret_environment_variables");
  assert.equal(content.key, "${secret_environment_variables.key}");
  assert.equal(
    content.secret,
    "${google_secret_manager_secret.secret[secret_environment_variables.value].secret_id}",
  );
  assert.equal(content.version, "latest");
  const versions = resourcesOfType(tf, "google_secret_manager_secret_version");
  assert.equal(versions.size, 0, "secret values never go through Terraform state");
});

test("every function told to use OTX also gets OTX_API_KEY, and OTX is off by default", () => {
  const groups = obj(local(tf, "env_groups"), "local.env_groups");
  const perFunction = obj(local(tf, "function_env_groups"), "local.function_env_groups");
  const secretEnv = obj(local(tf, "secret_env"), "local.secret_env");
  for (const name of ENTRY_POINT_NAMES) {
    const names = strings(perFunction[name], name).flatMap((g) => Object.keys(obj(groups[g], g)));
    if (!names.includes("FERRET_OTX_ENABLED")) continue;
    assert.equal(obj(secretEnv[name], name).OTX_API_KEY, "otx-api-key", `${name}: OTX_API_KEY`);
  }
  // A first apply must not need an OTX key: the secret is mounted only when enable_otx is set.
  assert.equal(tf.variables.get("enable_otx")?.default, false);
});

test("functions wait for the build account's grants to propagate before they are built", () => {
  // The provider's documented builder example (cloudfunctions2_basic_builder) sleeps 60 s after
  // granting the build account its roles, before creating the function.
  const sleep = resource(tf, "time_sleep.build_iam_propagation");
  assert.match(str(sleep.create_duration, "create_duration"), /^\d+s$/);
  assert.ok(Number.parseInt(str(sleep.create_duration, "create_duration"), 10) >= 60);
  const waitsFor = strings(sleep.depends_on, "time_sleep.depends_on");
  for (const grant of [
    "google_project_iam_member.grant",
    "google_project_iam_member.gcf_sources",
    "google_storage_bucket_iam_member.grant",
  ])
    assert.ok(waitsFor.includes(`\${${grant}}`), `time_sleep waits for ${grant}`);
  assert.ok(
    strings(fn().depends_on, "function depends_on").includes("${time_sleep.build_iam_propagation}"),
    "functions depend on the sleep",
  );
});

test("the timeout caps of var.functions name exactly the workflow-called and the Pub/Sub-fed entry points", () => {
  const validations = tf.variables.get("functions")?.validation;
  const conditions = (Array.isArray(validations) ? validations : [validations]).map((v) =>
    str(obj(v, "validation").condition, "condition"),
  );
  const capped = new Map<number, string[]>();
  for (const condition of conditions) {
    const m = /for name in \[([^\]]*)\] : var\.functions\[name\]\.timeout_seconds <= (\d+)/.exec(condition);
    if (m) capped.set(Number(m[2]), [...(m[1] ?? "").matchAll(/"(\w+)"/g)].map((x) => String(x[1])).sort());
  }
  const workflowCalled = ROLES.flatMap((ep) =>
    ep.trigger === "http" && ep.calledBy === "workflow" ? [ep.name] : [],
  ).sort();
  // The workflow waits 30 s longer than each function it calls, and no Workflows HTTP call may
  // exceed 1800 s; Pub/Sub's longest acknowledgement deadline is 600 s.
  assert.deepEqual(capped.get(1770), workflowCalled, "capped at 1770 s");
  assert.deepEqual(capped.get(600), [...PUBSUB_ENTRY_POINTS].sort(), "capped at 600 s");
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
/**
 * The web console's deployment (terraform/console.tf): one more gen2 function from the same
 * archive, reachable only through a global external Application Load Balancer with
 * Identity-Aware Proxy, running as its own read-mostly service account. Each test names the
 * regression it exists to catch.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ENV_OVERRIDES } from "../../../functions/src/config/config.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { ANALYST_TOPICS } from "../../../functions/src/platform/topics.js";
import { defaultVariables, Evaluator, type Variables } from "../../integration/parity/terraform-env.js";
import {
  allStrings,
  arr,
  block,
  blocks,
  isObject,
  type Json,
  type JsonObject,
  loadTerraform,
  local,
  obj,
  ref,
  resource,
  type Shape,
  shape,
  str,
  strings,
  type Terraform,
} from "./hcl.js";

const tf: Terraform = await loadTerraform();

const ON = { cond: ref("var", "enable_console"), ifTrue: 1, ifFalse: 0 };
const CONSOLE_SA = (attr: string): Shape => ref("google_service_account", "console", 0, attr);
const fn = (): JsonObject => resource(tf, "google_cloudfunctions2_function.console");
const backend = (): JsonObject => resource(tf, "google_compute_backend_service.console");
const neg = (): JsonObject => resource(tf, "google_compute_region_network_endpoint_group.console");

/** "type.name" => body of every resource declared in console.tf. */
function consoleResources(): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  const declared = obj(tf.files.get("console.tf")?.resource, "console.tf resources");
  for (const [type, named] of Object.entries(declared))
    for (const name of Object.keys(obj(named, type)))
      out.set(`${type}.${name}`, resource(tf, `${type}.${name}`));
  return out;
}

/** A list attribute: hcl2json keeps `[x]` as a JSON list of expressions. */
async function shapeList(value: Json | undefined, what: string): Promise<Shape> {
  return Array.isArray(value)
    ? Promise.all(value.map((item, i) => shape(item, `${what}[${i}]`)))
    : shape(value, what);
}

const IAM_RESOURCE = /_iam_(member|binding|policy)\./;

/** Terraform unescapes \\ and \" in a quoted string; hcl2json's expression parser leaves them. */
const hclString = (raw: string): string => raw.replace(/\\(["\\])/g, "$1");

async function validationRegex(variable: string): Promise<RegExp> {
  const [validation] = arr(tf.variables.get(variable)?.validation, `${variable}.validation`);
  const found: string[] = [];
  const walk = (s: Shape): void => {
    if (Array.isArray(s)) s.forEach(walk);
    else if (isObject(s as Json)) {
      const o = s as { call?: string; args?: Shape[] };
      if (o.call === "regex" && typeof o.args?.[0] === "string") found.push(o.args[0]);
      for (const v of Object.values(s as object)) walk(v as Shape);
    }
  };
  walk(await shape(obj(validation, "validation").condition, `${variable} condition`));
  assert.equal(found.length, 1, `${variable}: one regex in its validation`);
  return new RegExp(hclString(found[0] as string));
}

test("everything the console adds exists only with enable_console, which is off by default", async () => {
  assert.equal(tf.variables.get("enable_console")?.default, false);
  const resources = consoleResources();
  assert.ok(resources.size >= 15, `console.tf declares the console's resources (${resources.size})`);
  for (const [address, body] of resources)
    assert.deepEqual(await shape(body.count, `${address}.count`), ON, `${address}: count`);
  // IAP is the console's alone; compute it shares with the deny-egress action (apis.test.ts).
  const features = obj(local(tf, "feature_apis"), "local.feature_apis");
  assert.deepEqual(await shape(features["iap.googleapis.com"], "iap"), ref("var", "enable_console"));
});

test("the console is one more function from the same archive, internal-and-load-balancer ingress only", async () => {
  // Regression: ALLOW_ALL would serve the console at its run.app URL to the internet.
  const service = block(fn(), "service_config", "console");
  assert.equal(service.ingress_settings, "ALLOW_INTERNAL_AND_GCLB");
  assert.deepEqual(await shape(service.service_account_email, "service_account_email"), CONSOLE_SA("email"));
  assert.deepEqual(await shape(fn().name, "name"), ref("local", "console", "name"));
  assert.equal(service.min_instance_count, 0, "scales to zero");
  // It reads no secret: IAP's signature is checked with Google's public keys.
  assert.deepEqual(blocks(service, "dynamic", "service_config"), []);
  assert.deepEqual(obj(local(tf, "secret_env"), "secret_env").console, {});
  // Not a row of local.functions, so neither the workflow, a push subscription nor the public
  // invoker binding (for_each over local.public_functions) can reach it.
  assert.ok(!("console" in obj(local(tf, "functions"), "local.functions")));
  const account = resource(tf, "google_service_account.console");
  assert.equal(account.account_id, "ferret-console");
  const others = obj(local(tf, "service_accounts"), "local.service_accounts");
  for (const [key, sa] of Object.entries(others))
    assert.notEqual(obj(sa, key).account_id, "ferret-console", `${key}: the console's account is its own`);
});

test("nobody may invoke the console's Cloud Run service but IAP's service agent", async () => {
  // Regression: an allUsers / allAuthenticatedUsers invoker, or a second invoker.
  const onConsole: string[] = [];
  for (const [address, body] of tf.resources) {
    if (!IAM_RESOURCE.test(address)) continue;
    if (/^google_(cloudfunctions2_function|cloud_run_v2_service|cloud_run_service)_iam_/.test(address)) {
      if (allStrings(body).some((s) => s.includes("google_cloudfunctions2_function.console")))
        onConsole.push(address);
    }
  }
  assert.deepEqual(onConsole, ["google_cloud_run_v2_service_iam_member.console_iap_invoker"]);
  const invoker = resource(tf, "google_cloud_run_v2_service_iam_member.console_iap_invoker");
  assert.equal(invoker.role, "roles/run.invoker");
  assert.deepEqual(
    await shape(invoker.member, "member"),
    ref("google_project_service_identity", "iap", 0, "member"),
  );
  assert.deepEqual(
    await shape(invoker.name, "name"),
    ref("google_cloudfunctions2_function", "console", 0, "service_config", 0, "service"),
  );
  const agent = resource(tf, "google_project_service_identity.iap");
  assert.equal(agent.service, "iap.googleapis.com");
  assert.equal(agent.provider, "${google-beta}");
  for (const s of allStrings(obj(tf.files.get("console.tf"), "console.tf")))
    assert.doesNotMatch(s, /allUsers|allAuthenticatedUsers|public:all/, "no public principal in console.tf");
});

test("IAP is enabled on the console's backend service, with Google's OAuth client (no secret in state)", async () => {
  // Regression: iap.enabled false (or the block gone) would let the load balancer through unchecked.
  const iap = block(backend(), "iap", "backend service");
  assert.equal(iap.enabled, true);
  assert.deepEqual(Object.keys(iap), ["enabled"], "no OAuth client secret lands in Terraform state");
  assert.equal(backend().load_balancing_scheme, "EXTERNAL_MANAGED");
  assert.equal(backend().health_checks, undefined, "serverless NEGs take no health check");
  const [only, ...more] = blocks(backend(), "backend", "backend service");
  assert.ok(only && more.length === 0, "one backend");
  assert.deepEqual(
    await shape(only.group, "backend.group"),
    ref("google_compute_region_network_endpoint_group", "console", 0, "id"),
  );
});

test("the serverless NEG points at the console function's Cloud Run service, by name", async () => {
  // Regression: a NEG naming another service, or one referencing the function resource (cycle).
  assert.equal(neg().network_endpoint_type, "SERVERLESS");
  assert.deepEqual(await shape(neg().region, "region"), ref("var", "region"));
  assert.deepEqual(await shape(fn().location, "location"), ref("var", "region"), "same region as the NEG");
  assert.equal(neg().cloud_function, undefined, "a Cloud Run NEG: gen2 functions are Cloud Run services");
  const target = await shape(block(neg(), "cloud_run", "NEG").service, "cloud_run.service");
  assert.deepEqual(target, await shape(fn().name, "function name"), "the NEG names the console function");
  assert.ok(
    !allStrings(neg()).some((s) => s.includes("google_cloudfunctions2_function")),
    "the NEG must not depend on the function: the function depends on the backend service's id",
  );
  // Gen2 names the service after the function; the apply fails if that ever stops being so.
  const [postcondition] = arr(
    obj(arr(fn().lifecycle, "lifecycle")[0], "lifecycle").postcondition,
    "postcondition",
  );
  assert.match(
    str(obj(postcondition, "postcondition").condition, "condition"),
    /service_config\[0\]\.service.*local\.console\.name/,
  );
});

test("FERRET_CONSOLE_IAP_AUDIENCE is IAP's audience for this backend service, built from its generated id", async () => {
  // Regression: an audience from anything else (the backend's name, the Cloud Run service's
  // /locations/…/services/… form) would make the function refuse every request.
  const group = obj(obj(local(tf, "env_groups"), "env_groups").console, "env_groups.console");
  assert.equal(group.FERRET_CONSOLE_AUTH, "iap");
  assert.deepEqual(
    await shape(group.FERRET_CONSOLE_IAP_AUDIENCE, "audience"),
    ref("local", "console_iap_audience"),
  );
  assert.deepEqual(await shape(local(tf, "console_iap_audience"), "local.console_iap_audience"), {
    cond: ref("var", "enable_console"),
    ifTrue: {
      template: [
        "/projects/",
        ref("data", "google_project", "ferret", "number"),
        "/global/backendServices/",
        ref("google_compute_backend_service", "console", 0, "generated_id"),
      ],
    },
    ifFalse: "",
  });
  for (const name of Object.keys(group))
    assert.ok(name in ENV_OVERRIDES, `${name} is a variable the configuration reads`);
  assert.equal(ENV_OVERRIDES.FERRET_CONSOLE_IAP_AUDIENCE?.path, "console.iapAudience");
  assert.equal(ENV_OVERRIDES.FERRET_CONSOLE_AUTH?.path, "console.auth");
  assert.deepEqual(strings(obj(local(tf, "function_env_groups"), "groups").console, "console groups"), [
    "common",
    "governor",
    "console",
  ]);
});

test("the resource graph has no cycle (the audience breaks it: NEG by name, function after the backend)", () => {
  const locals = tf.locals;
  const refsIn = (value: Json | undefined): { resources: Set<string>; locals: Set<string> } => {
    const resources = new Set<string>();
    const names = new Set<string>();
    for (const s of allStrings(value ?? null)) {
      for (const m of s.matchAll(/(?<![\w.-])(google_[a-z0-9_]+|time_sleep)\.([a-z0-9_]+)/g)) {
        if (tf.resources.has(`${m[1]}.${m[2]}`)) resources.add(`${m[1]}.${m[2]}`);
      }
      for (const m of s.matchAll(/(?<![\w.-])local\.([a-z0-9_]+)/g)) names.add(m[1] ?? "");
    }
    return { resources, locals: names };
  };
  const localDeps = new Map<string, Set<string>>();
  const resolveLocal = (name: string, seen: Set<string> = new Set()): Set<string> => {
    const known = localDeps.get(name);
    if (known) return known;
    if (seen.has(name)) throw new Error(`local.${name} refers to itself`);
    seen.add(name);
    const { resources, locals: more } = refsIn(locals[name]);
    for (const other of more) for (const r of resolveLocal(other, seen)) resources.add(r);
    localDeps.set(name, resources);
    return resources;
  };
  const edges = new Map<string, Set<string>>();
  for (const [address, body] of tf.resources) {
    const { resources, locals: used } = refsIn(body);
    for (const name of used) for (const r of resolveLocal(name)) resources.add(r);
    resources.delete(address);
    edges.set(address, resources);
  }
  // The console's chain, as the apply must order it.
  const needs = (from: string, to: string) => edges.get(from)?.has(to) ?? false;
  assert.ok(needs("google_cloudfunctions2_function.console", "google_compute_backend_service.console"));
  assert.ok(
    needs("google_compute_backend_service.console", "google_compute_region_network_endpoint_group.console"),
  );
  assert.ok(
    !needs("google_compute_region_network_endpoint_group.console", "google_cloudfunctions2_function.console"),
  );
  const state = new Map<string, "visiting" | "done">();
  const visit = (node: string, path: string[]): void => {
    if (state.get(node) === "done") return;
    if (state.get(node) === "visiting") assert.fail(`dependency cycle: ${[...path, node].join(" -> ")}`);
    state.set(node, "visiting");
    for (const next of edges.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, "done");
  };
  for (const node of edges.keys()) visit(node, []);
});

test("IAP admits exactly console_members, and console_members admits no public principal", async () => {
  // Regression: allUsers or allAuthenticatedUsers as accessors would open the console to anyone.
  const binding = resource(tf, "google_iap_web_backend_service_iam_binding.console_access");
  assert.equal(binding.role, "roles/iap.httpsResourceAccessor");
  assert.deepEqual(await shape(binding.members, "members"), ref("var", "console_members"));
  assert.deepEqual(
    await shape(binding.web_backend_service, "web_backend_service"),
    ref("google_compute_backend_service", "console", 0, "name"),
  );
  const [precondition] = arr(
    obj(arr(binding.lifecycle, "lifecycle")[0], "lifecycle").precondition,
    "precondition",
  );
  assert.equal(
    str(obj(precondition, "precondition").condition, "condition"),
    "${length(var.console_members) > 0}",
  );
  assert.deepEqual(tf.variables.get("console_members")?.default, []);

  const member = await validationRegex("console_members");
  for (const ok of [
    "user:ana@example.com",
    "group:secops@example.com",
    "serviceAccount:reader@my-project.iam.gserviceaccount.com",
    "domain:example.com",
  ])
    assert.ok(member.test(ok), `${ok} is accepted`);
  for (const bad of [
    "allUsers",
    "allAuthenticatedUsers",
    "user:allUsers",
    "group:allAuthenticatedUsers",
    "principalSet://goog/public:all",
    "user:ana",
    "domain:",
    "ana@example.com",
    "",
  ])
    assert.ok(!member.test(bad), `${JSON.stringify(bad)} is refused`);

  const domain = await validationRegex("console_domain");
  assert.ok(domain.test("ferret.example.com"));
  for (const bad of ["https://ferret.example.com", "ferret.example.com/", "localhost", "Ferret.Example.com"])
    assert.ok(!domain.test(bad), `${bad} is refused`);
});

test("the console's account is read-mostly: Firestore viewer, a delete-only custom role, publisher on analyst-actions", async () => {
  // Regression: a write role it does not need (datastore.user, editor, pubsub.editor…), a grant
  // on another topic, or a custom role that can create or update documents.
  const held = new Map<string, JsonObject>();
  for (const [address, body] of tf.resources) {
    if (!IAM_RESOURCE.test(address)) continue;
    const members = [body.member, body.members].filter((m) => m !== undefined);
    if (allStrings(members as Json).some((s) => s.includes("google_service_account.console")))
      held.set(address, body);
  }
  assert.deepEqual([...held.keys()].sort(), [
    "google_project_iam_member.console_memory_delete",
    "google_project_iam_member.console_reader",
    "google_pubsub_topic_iam_member.console_publisher",
  ]);
  for (const body of held.values())
    assert.deepEqual(await shape(body.member, "member"), CONSOLE_SA("member"));

  assert.equal(held.get("google_project_iam_member.console_reader")?.role, "roles/datastore.viewer");
  const publisher = held.get("google_pubsub_topic_iam_member.console_publisher") as JsonObject;
  assert.equal(publisher.role, "roles/pubsub.publisher");
  assert.deepEqual(
    await shape(publisher.topic, "topic"),
    ref("google_pubsub_topic", "topic", ANALYST_TOPICS.analystActions, "name"),
  );
  const deleter = held.get("google_project_iam_member.console_memory_delete") as JsonObject;
  assert.deepEqual(
    await shape(deleter.role, "role"),
    ref("google_project_iam_custom_role", "console_memory_delete", 0, "id"),
  );
  const role = resource(tf, "google_project_iam_custom_role.console_memory_delete");
  // Firestore: begin/roll back a transaction, and a delete in a commit; nothing that writes.
  assert.deepEqual(strings(role.permissions, "permissions").sort(), [
    "datastore.databases.get",
    "datastore.entities.delete",
  ]);

  // What the code does with those grants: the composition root builds Firestore and Pub/Sub only,
  // the actions publish to analyst-actions only, and the one Firestore change is a memory delete.
  const compose = readFileSync(fromRoot("functions/src/console/compose.ts"), "utf8");
  const imports = [...compose.matchAll(/from "\.\.\/adapters\/([a-z-]+)\//g)].map((m) => m[1]);
  // traces: a local file reader (the run directory's spans), which needs no grant; it must stay so.
  assert.deepEqual([...new Set(imports)].sort(), ["firestore", "pubsub", "traces"]);
  const traceReader = readFileSync(fromRoot("functions/src/adapters/traces/file-reader.ts"), "utf8");
  assert.doesNotMatch(
    traceReader,
    /@google-cloud|googleapis|google-auth/,
    "the trace reader calls no Google API",
  );
  const actions = readFileSync(fromRoot("functions/src/console/actions.ts"), "utf8");
  assert.deepEqual(
    [...actions.matchAll(/bus\.publish\(\s*([A-Za-z_.]+)/g)].map((m) => m[1]),
    ["ANALYST_TOPICS.analystActions"],
  );
  assert.deepEqual(
    [...actions.matchAll(/deps\.memories\.(\w+)\(/g)].map((m) => m[1]),
    ["delete"],
  );
});

test("the front end: HTTPS on 443 only, a managed certificate for console_domain, TLS 1.2 or later", async () => {
  const cert = resource(tf, "google_compute_managed_ssl_certificate.console");
  assert.deepEqual(await shapeList(block(cert, "managed", "certificate").domains, "domains"), [
    ref("var", "console_domain"),
  ]);
  assert.equal(obj(arr(cert.lifecycle, "lifecycle")[0], "lifecycle").create_before_destroy, true);
  const proxy = resource(tf, "google_compute_target_https_proxy.console");
  assert.deepEqual(await shape(proxy.url_map, "url_map"), ref("google_compute_url_map", "console", 0, "id"));
  assert.deepEqual(await shapeList(proxy.ssl_certificates, "ssl_certificates"), [
    ref("google_compute_managed_ssl_certificate", "console", 0, "id"),
  ]);
  assert.deepEqual(
    await shape(proxy.ssl_policy, "ssl_policy"),
    ref("google_compute_ssl_policy", "console", 0, "id"),
  );
  const policy = resource(tf, "google_compute_ssl_policy.console");
  assert.equal(policy.min_tls_version, "TLS_1_2");
  assert.equal(policy.profile, "MODERN");
  const urlMap = resource(tf, "google_compute_url_map.console");
  assert.deepEqual(
    await shape(urlMap.default_service, "default_service"),
    ref("google_compute_backend_service", "console", 0, "id"),
  );
  const rule = resource(tf, "google_compute_global_forwarding_rule.console");
  assert.equal(rule.load_balancing_scheme, "EXTERNAL_MANAGED");
  assert.equal(rule.port_range, "443");
  assert.deepEqual(
    await shape(rule.target, "target"),
    ref("google_compute_target_https_proxy", "console", 0, "id"),
  );
  assert.deepEqual(
    await shape(rule.ip_address, "ip_address"),
    ref("google_compute_global_address", "console", 0, "id"),
  );
  const httpProxies = [...tf.resources.keys()].filter((a) =>
    a.startsWith("google_compute_target_http_proxy."),
  );
  assert.deepEqual(httpProxies, [], "no plain-HTTP listener");
});

test("the APIs the console needs are enabled with it, outside the list every deployment needs", () => {
  const features = obj(local(tf, "feature_apis"), "local.feature_apis");
  const everyDeployment = strings(local(tf, "apis"), "local.apis");
  const defaults = defaultVariables(tf);
  for (const api of ["compute.googleapis.com", "iap.googleapis.com"]) {
    assert.ok(!everyDeployment.includes(api), `${api} is not in local.apis`);
    const on = (vars: Variables) => new Evaluator(tf, { ...defaults, ...vars }).value(features[api], api);
    assert.equal(on({ enable_console: true }), true, `${api} is enabled with enable_console`);
    assert.equal(on({}), false, `${api} is off by default`);
  }
  const r = resource(tf, "google_project_service.feature_api");
  assert.equal(r.disable_on_destroy, false);
  assert.ok(
    strings(fn().depends_on, "function depends_on").includes("${google_project_service.feature_api}"),
    "the function waits for the APIs",
  );
});

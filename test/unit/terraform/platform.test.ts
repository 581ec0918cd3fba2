// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions, not JS templates.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  allStrings,
  block,
  loadTerraform,
  local,
  obj,
  parseHclFile,
  REPO_ROOT,
  resource,
  str,
  strings,
  TERRAFORM_DIR,
  type Terraform,
} from "./hcl.js";

const tf: Terraform = await loadTerraform();

test("the module has main, variables, outputs and versions files", () => {
  for (const file of ["main.tf", "variables.tf", "outputs.tf", "versions.tf"]) {
    assert.ok(existsSync(join(TERRAFORM_DIR, file)), `terraform/${file}`);
  }
  assert.ok(tf.outputs.size > 0, "outputs are declared");
});

test("every variable is typed and described, every output described", () => {
  for (const [name, v] of tf.variables) {
    assert.match(String(v.type ?? ""), /^\$\{.+\}$/s, `variable ${name} has a type`);
    assert.ok(String(v.description ?? "").trim().length > 10, `variable ${name} has a description`);
  }
  for (const [name, o] of tf.outputs)
    assert.ok(String(o.description ?? "").trim(), `output ${name} has a description`);
});

test("Terraform and every provider are pinned to a version range", () => {
  // A deployer's own (git-ignored) backend.tf may add a terraform {} block holding only a backend.
  const withProviders = tf.terraformBlocks.filter((b) => "required_providers" in b);
  const [settings, ...rest] = withProviders;
  assert.ok(settings && rest.length === 0, "one terraform {} block declares the providers");
  for (const other of tf.terraformBlocks.filter((b) => b !== settings)) {
    assert.deepEqual(Object.keys(other), ["backend"], "other terraform {} blocks hold only a backend");
  }
  assert.match(str(settings.required_version, "required_version"), /^>= ?\d+\.\d+(\.\d+)?, < ?\d+/);
  const required = obj(block(settings, "required_providers", "terraform"), "required_providers");
  assert.deepEqual(Object.keys(required).sort(), ["archive", "google", "google-beta", "time"]);
  // archive_file's glob excludes (which keep .env and *.tfvars out of the upload) arrived in 2.5.0.
  assert.match(str(obj(required.archive, "archive").version, "archive.version"), /^>= ?2\.5\.0,/);
  for (const [name, spec] of Object.entries(required)) {
    const version = str(obj(spec, name).version, `${name}.version`);
    assert.match(version, /^(>= ?\d+\.\d+\.\d+, < ?\d+\.\d+\.\d+|~> ?\d+\.\d+)$/, `${name}: bounded range`);
    assert.equal(obj(spec, name).source, `hashicorp/${name}`);
  }
  for (const provider of ["google", "google-beta"]) {
    const p = tf.providers.get(provider);
    assert.ok(p, `provider ${provider} is configured`);
    assert.equal(p.project, "${var.project_id}");
  }
});

test("the APIs ferret uses are enabled and stay enabled on destroy", () => {
  const apis = strings(local(tf, "apis"), "local.apis");
  for (const api of [
    "aiplatform.googleapis.com",
    "bigquery.googleapis.com",
    "cloudbuild.googleapis.com",
    "cloudfunctions.googleapis.com",
    "firestore.googleapis.com",
    "pubsub.googleapis.com",
    "run.googleapis.com",
    "secretmanager.googleapis.com",
    "securitycenter.googleapis.com",
    "workflowexecutions.googleapis.com",
    "workflows.googleapis.com",
    "artifactregistry.googleapis.com",
    "storage.googleapis.com",
  ]) {
    assert.ok(apis.includes(api), `${api} is enabled`);
  }
  const api = resource(tf, "google_project_service.api");
  assert.equal(api.for_each, "${toset(local.apis)}");
  assert.equal(api.disable_on_destroy, false);
});

test("the SCC v2 organization notification config streams filtered findings to scc-findings", () => {
  const config = resource(tf, "google_scc_v2_organization_notification_config.findings");
  assert.equal(config.organization, "${var.organization_id}");
  assert.equal(config.pubsub_topic, '${google_pubsub_topic.topic["scc-findings"].id}');
  assert.equal(block(config, "streaming_config", "notification config").filter, "${var.scc_findings_filter}");

  const filter = str(tf.variables.get("scc_findings_filter")?.default, "scc_findings_filter default");
  for (const term of ['state="ACTIVE"', 'NOT mute="MUTED"', 'severity="HIGH"', 'severity="CRITICAL"']) {
    assert.ok(filter.includes(term), `default filter has ${term}`);
  }
  assert.match(
    filter,
    /\(severity="HIGH" OR severity="CRITICAL"\)/,
    "OR binds tighter than AND in SCC filters",
  );

  const grant = resource(tf, "google_pubsub_topic_iam_member.scc_publisher");
  assert.equal(
    grant.member,
    "serviceAccount:${google_scc_v2_organization_notification_config.findings[0].service_account}",
  );
  assert.equal(grant.role, "roles/pubsub.publisher");
  assert.equal(grant.count, config.count, "the grant exists exactly when the config does");
});

test("examples/terraform.tfvars.example sets every required variable and only declared ones", async () => {
  const example = await parseHclFile(join(REPO_ROOT, "examples", "terraform.tfvars.example"));
  for (const key of Object.keys(example))
    assert.ok(tf.variables.has(key), `${key} is not a declared variable`);
  for (const [name, v] of tf.variables) {
    if (!("default" in v))
      assert.ok(name in example, `required variable ${name} is missing from the example`);
  }
});

test("every reference in an expression names a declared resource, data source, variable or local", () => {
  const problems: string[] = [];
  for (const [file, parsed] of tf.files) {
    for (const s of allStrings(parsed).filter((x) => x.includes("${"))) {
      for (const m of s.matchAll(/(?<![\w.-])(google_[a-z0-9_]+)\.([a-z0-9_]+)/g)) {
        if (!tf.resources.has(`${m[1]}.${m[2]}`)) problems.push(`${file}: ${m[1]}.${m[2]}`);
      }
      for (const m of s.matchAll(/(?<![\w.-])data\.([a-z0-9_]+)\.([a-z0-9_]+)/g)) {
        if (!tf.data.has(`${m[1]}.${m[2]}`)) problems.push(`${file}: data.${m[1]}.${m[2]}`);
      }
      for (const m of s.matchAll(/(?<![\w.-])var\.([a-z0-9_]+)/g)) {
        if (!tf.variables.has(m[1] ?? "")) problems.push(`${file}: var.${m[1]}`);
      }
      for (const m of s.matchAll(/(?<![\w.-])local\.([a-z0-9_]+)/g)) {
        if (!((m[1] ?? "") in tf.locals)) problems.push(`${file}: local.${m[1]}`);
      }
    }
  }
  assert.deepEqual(problems, [], "unresolved references");
});

test("docs/deploy.md and the decision record exist", () => {
  assert.ok(existsSync(join(REPO_ROOT, "docs", "deploy.md")));
  assert.ok(existsSync(join(REPO_ROOT, "docs", "decisions", "0004-terraform-deployment.md")));
});

test("docs/deploy.md's pre-flight checklist names every API Terraform enables and domain-restricted sharing", () => {
  const doc = readFileSync(join(REPO_ROOT, "docs", "deploy.md"), "utf8");
  const preflight = doc.slice(doc.indexOf("### Pre-flight checklist"), doc.indexOf("## 1. "));
  assert.ok(preflight.length > 0, "docs/deploy.md has a pre-flight checklist before step 1");
  for (const api of strings(local(tf, "apis"), "local.apis"))
    assert.ok(preflight.includes(`\`${api}\``), `pre-flight lists ${api}`);
  // Google-managed service agents are outside the customer's domain, so the constraint matters.
  assert.match(preflight, /iam\.allowedPolicyMemberDomains[^\n]*\*\*affects ferret\.\*\*/);
  assert.doesNotMatch(doc, /allowedPolicyMemberDomains` does not affect/);
});

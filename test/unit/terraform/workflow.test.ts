// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform/Workflows expressions.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { ROLES } from "../../../functions/src/roles/index.js";
import { toTerraformTemplate } from "../../../scripts/render-workflow-template.js";
import {
  functionTimeoutDefaults,
  functionTimeoutEnvVar,
  functionUrlEnvVar,
  loadTerraform,
  obj,
  REPO_ROOT,
  renderTemplateWithoutVariables,
  resource,
  str,
  TERRAFORM_DIR,
  type Terraform,
} from "./hcl.js";

const tf: Terraform = await loadTerraform();
const YAML_PATH = join(REPO_ROOT, "workflows", "investigate.yaml");
const REGENERATE = "run `npx tsx scripts/render-workflow-template.ts` and commit terraform/templates/";

function workflowYaml(): string {
  assert.ok(
    existsSync(YAML_PATH),
    "workflows/investigate.yaml is missing: Terraform deploys exactly that file, so it must exist before merge",
  );
  return readFileSync(YAML_PATH, "utf8");
}

/** The template path given to templatefile(); the template must take no variables. */
function templatePath(): string {
  const source = str(
    resource(tf, "google_workflows_workflow.investigate").source_contents,
    "source_contents",
  );
  const m = /^\$\{templatefile\("\$\{path\.module\}\/([^"]+\.tftpl)",\s*\{\s*\}\)\}$/.exec(source);
  assert.ok(
    m?.[1],
    `source_contents must be templatefile("\${path.module}/<file>.tftpl", {}), got ${source}`,
  );
  return join(TERRAFORM_DIR, m[1]);
}

test("the workflow template renders back to exactly workflows/investigate.yaml", () => {
  const yaml = workflowYaml();
  const path = templatePath();
  assert.ok(existsSync(path), `${relative(REPO_ROOT, path)} is missing: ${REGENERATE}`);
  const rendered = renderTemplateWithoutVariables(readFileSync(path, "utf8"));
  assert.ok(
    rendered === yaml,
    `${relative(REPO_ROOT, path)} is out of date with workflows/investigate.yaml: ${REGENERATE}`,
  );
});

test("the workflow gets one FERRET_*_URL and FERRET_*_TIMEOUT_SECONDS per HTTP function, pointing at that function", () => {
  const envVars = obj(resource(tf, "google_workflows_workflow.investigate").user_env_vars, "user_env_vars");
  const http = ROLES.filter((ep) => ep.trigger === "http" && ep.calledBy === "workflow").map((ep) => ep.name);
  assert.deepEqual(
    Object.keys(envVars).sort(),
    [
      ...http.map(functionUrlEnvVar),
      ...http.map(functionTimeoutEnvVar),
      "FERRET_APPROVAL_TIMEOUT_SECONDS",
    ].sort(),
  );
  // The approval wait: the same variable the functions read as approvals.timeoutSeconds.
  assert.equal(envVars.FERRET_APPROVAL_TIMEOUT_SECONDS, "${tostring(var.approval_timeout_seconds)}");
  const fallback = /int\(sys\.get_env\("FERRET_APPROVAL_TIMEOUT_SECONDS",\s*"(\d+)"\)\)/.exec(workflowYaml());
  assert.equal(Number(fallback?.[1]), tf.variables.get("approval_timeout_seconds")?.default);
  for (const name of http) {
    assert.equal(
      envVars[functionUrlEnvVar(name)],
      `\${google_cloudfunctions2_function.function["${name}"].service_config[0].uri}`,
      `${functionUrlEnvVar(name)} points at ${name}`,
    );
  }
  assert.equal(functionUrlEnvVar("stepExecutor"), "FERRET_STEP_EXECUTOR_URL");
});

test("the workflow's HTTP timeouts come from the same variables as the functions' timeouts", () => {
  const envVars = obj(resource(tf, "google_workflows_workflow.investigate").user_env_vars, "user_env_vars");
  const yaml = workflowYaml();
  const defaults = functionTimeoutDefaults(tf);
  for (const ep of ROLES.filter((e) => e.trigger === "http" && e.calledBy === "workflow")) {
    const name = functionTimeoutEnvVar(ep.name);
    assert.equal(envVars[name], `\${tostring(var.functions.${ep.name}.timeout_seconds)}`, name);
    // Outside Terraform (the local stack, tests) the YAML falls back to Terraform's default.
    const fallback = new RegExp(`int\\(sys\\.get_env\\("${name}",\\s*"(\\d+)"\\)\\)`).exec(yaml);
    assert.ok(fallback, `the workflow reads ${name} with a fallback`);
    assert.equal(Number(fallback[1]), defaults.get(ep.name), `${name}: fallback = var.functions default`);
  }
  // No literal timeout is left in a call: each one is a function's timeout.
  assert.doesNotMatch(yaml, /^\s*timeout:\s*\d+\s*$/m);
});

test("every sys.get_env() in the workflow is provided by user_env_vars", () => {
  const yaml = workflowYaml();
  const envVars = obj(resource(tf, "google_workflows_workflow.investigate").user_env_vars, "user_env_vars");
  const read = [...yaml.matchAll(/sys\.get_env\(\s*["']([^"']+)["']/g)].map((m) => m[1] ?? "");
  assert.ok(read.length > 0, "the workflow reads the function URLs with sys.get_env");
  for (const name of read) assert.ok(name in envVars, `sys.get_env("${name}") has no user_env_vars entry`);
});

test("the generator's escaping survives Workflows expressions, directives and literal dollars", () => {
  const samples = [
    'url: ${sys.get_env("FERRET_PLANNER_URL")}\n',
    'a: ${x + "${"}\nb: %{not a directive}\n',
    "price: $$ and $${already} and $$${nested} and %%{x}\n",
    "",
  ];
  for (const sample of samples) {
    assert.equal(renderTemplateWithoutVariables(toTerraformTemplate(sample)), sample);
  }
  assert.throws(() => renderTemplateWithoutVariables("a: ${var}\n"), /unescaped/);
  assert.throws(() => renderTemplateWithoutVariables("a: %{ if x }\n"), /unescaped/);
});

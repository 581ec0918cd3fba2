import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "@cdktf/hcl2json";
import { FUNCTIONS } from "../../../functions/src/doctor/expectations.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { ROLES } from "../../../functions/src/roles/index.js";
import { defaultVariables } from "../../integration/parity/terraform-env.js";
import { loadTerraform, local, obj, resourcesOfType, type Terraform } from "../terraform/hcl.js";

/**
 * docs/deploy.md and examples/terraform.tfvars.example kept true to terraform/: the counts of
 * functions and service accounts, every function and account named, the defaults shown, and
 * the roles a deployer needs for the custom roles the .tf creates.
 */
const tf: Terraform = await loadTerraform();
const doc = readFileSync(fromRoot("docs/deploy.md"), "utf8");
const example = readFileSync(fromRoot("examples/terraform.tfvars.example"), "utf8");
const defaults = defaultVariables(tf);
const accounts = obj(local(tf, "service_accounts"), "local.service_accounts");
const accountIds = Object.values(accounts).map((a) => String(obj(a, "account").account_id));

const WORDS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
];
const asNumber = (word: string): number =>
  /^\d+$/.test(word) ? Number(word) : WORDS.indexOf(word.toLowerCase());

/** The markdown table rows (cells) under the heading that starts with `heading`. */
function tableAfter(heading: string): string[][] {
  const start = doc.indexOf(heading);
  assert.ok(start >= 0, `docs/deploy.md has "${heading}"`);
  const lines = doc.slice(start).split("\n").slice(1);
  const first = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith("|")) break;
    if (/^\|[-| ]+\|$/.test(line)) continue;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  return rows.slice(1);
}

test("every count of service accounts in docs/deploy.md is Terraform's (one more with the console)", () => {
  const counts = [...doc.matchAll(/\b(\d+|[a-z]+) service accounts\b/gi)]
    .map((m) => asNumber(m[1] as string))
    .filter((n) => n >= 0);
  assert.ok(counts.length >= 2, "the pre-flight checklist and the deployer table state the count");
  const n = Object.keys(accounts).length;
  for (const c of counts)
    assert.ok(
      c === n || c === n + 1,
      `"${c} service accounts": Terraform creates ${n} (+1 with the console)`,
    );
  for (const m of doc.matchAll(/(\d+) service accounts are created, (\d+) with `enable_console`/g))
    assert.deepEqual([Number(m[1]), Number(m[2])], [n, n + 1]);
});

test("every count of functions in docs/deploy.md and the README is the number of such entry points", () => {
  const workflowCalled = ROLES.filter((e) => e.trigger === "http" && e.calledBy === "workflow").length;
  const pushed = ROLES.filter((e) => e.trigger === "pubsub").length;
  const patterns: [RegExp, number][] = [
    [/\bthe (\d+|[a-z]+) functions are\b/gi, ROLES.length],
    [/\b(\d+|[a-z]+) functions the workflow calls\b/gi, workflowCalled],
    [/\b(\d+|[a-z]+) Pub\/Sub-fed functions\b/gi, pushed],
    [/\bone per function \((\d+)\)/gi, ROLES.length],
  ];
  let checked = 0;
  for (const [file, text] of [
    ["docs/deploy.md", doc],
    ["README.md", readFileSync(fromRoot("README.md"), "utf8")],
  ] as const) {
    for (const [pattern, expected] of patterns)
      for (const m of text.matchAll(pattern)) {
        const n = asNumber(m[1] as string);
        if (n < 0) continue;
        assert.equal(n, expected, `${file}: "${m[0]}"`);
        checked += 1;
      }
  }
  assert.ok(checked >= 4, `only ${checked} counts found`);
});

test("the deployed-resources table names every function, and the reference names every service account", () => {
  const deployed = tableAfter("## What gets deployed").find((r) => r[0]?.startsWith("Cloud Functions (gen2"));
  assert.ok(deployed, "the Cloud Functions row");
  const named = new Set([...(deployed[1] ?? "").matchAll(/`(ferret-[a-z-]+)`/g)].map((m) => m[1]));
  named.add("ferret-slack-events"); // its own row: the one public function
  assert.deepEqual(
    Object.values(FUNCTIONS)
      .map((f) => f.service)
      .filter((s) => !named.has(s)),
    [],
    "functions missing from the table",
  );
  const reference = tableAfter("### Service accounts and their roles").map((r) => r[0] ?? "");
  const listed = new Set(
    reference.flatMap((cell) => [...cell.matchAll(/`(ferret-[a-z-]+)`/g)].map((m) => m[1])),
  );
  assert.deepEqual(
    accountIds.filter((id) => !listed.has(id)),
    [],
    "service accounts missing from the reference",
  );
});

test("the function defaults table is var.functions' defaults, for every function", () => {
  const fns = defaults.functions as Record<
    string,
    { memory: string; timeout_seconds: number; max_instances: number }
  >;
  const seen = new Set<string>();
  for (const [names = "", memory = "", timeout = "", max = ""] of tableAfter(
    "Function defaults (override only",
  )) {
    for (const name of names.split(",").map((n) => n.trim())) {
      const d = fns[name];
      assert.ok(d, `${name} is a function`);
      seen.add(name);
      assert.equal(memory, d.memory, `${name} memory`);
      assert.equal(timeout, `${d.timeout_seconds} s`, `${name} timeout`);
      assert.equal(Number.parseInt(max, 10), d.max_instances, `${name} max instances`);
    }
  }
  assert.deepEqual(
    ROLES.map((e) => e.name).filter((n) => !seen.has(n)),
    [],
    "functions missing from the table",
  );
});

/** A value as the docs write it, as HCL would read it. */
async function hclValue(text: string): Promise<unknown> {
  const parsed = (await parse("value.tf", `locals {\n  v = ${text}\n}\n`)) as { locals?: { v?: unknown }[] };
  return parsed.locals?.[0]?.v;
}

test("the defaults docs/deploy.md's variable table shows are the variables' defaults", async () => {
  let checked = 0;
  for (const [nameCell = "", defaultCell = ""] of tableAfter("| Variable | Default | Meaning |")) {
    const names = [...nameCell.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string);
    const values = defaultCell.split(" / ").map((v) => v.trim());
    if (names.length !== values.length) continue;
    names.forEach((name, i) => {
      const shown = /^`(.*)`$/.exec(values[i] ?? "")?.[1];
      if (shown === undefined || !(name in defaults)) return;
      const actual = defaults[name];
      // A null default is described (`project_id`: the value of another variable).
      if (actual === null || actual === undefined) return;
      if (typeof actual === "string") assert.equal(shown, actual, `${name}`);
      else if (typeof actual === "number" || typeof actual === "boolean")
        assert.equal(shown, String(actual), name);
      else assert.equal(shown, JSON.stringify(actual), name);
      checked += 1;
    });
  }
  assert.ok(checked >= 15, `only ${checked} defaults found in the table`);
});

test("every default examples/terraform.tfvars.example shows is the variable's default", async () => {
  let checked = 0;
  for (const line of example.split("\n")) {
    const m = /^# ([a-z_]+)\s*=\s*(.+?)\s*(?:#.*)?$/.exec(line);
    if (!m) continue;
    const name = m[1] as string;
    assert.ok(name in defaults, `${name} is a variable with a default`);
    assert.deepEqual(await hclValue(m[2] as string), defaults[name], `${name} = ${m[2]}`);
    checked += 1;
  }
  assert.ok(checked >= 15, `only ${checked} defaults checked`);
});

test("the deployer may create every custom role Terraform creates, under the condition it is created", () => {
  const rows = tableAfter("## 1. Permissions the deployer needs");
  const rowWith = (role: string) => rows.find((r) => (r[1] ?? "").includes(`\`${role}\``));
  const needs = [
    ["google_project_iam_custom_role", "roles/iam.roleAdmin"],
    ["google_organization_iam_custom_role", "roles/iam.organizationRoleAdmin"],
  ] as const;
  for (const [type, role] of needs) {
    const created = resourcesOfType(tf, type);
    assert.ok(created.size > 0, type);
    const row = rowWith(role);
    assert.ok(row, `the deployer table lists ${role} (for ${[...created.keys()].join(", ")})`);
    const where = row[0] ?? "";
    const always = [...created.values()].some((body) => body.count === undefined);
    if (always) assert.doesNotMatch(where, /only with/, `${role}: some ${type} is always created`);
    // A conditional role is named with each variable its count depends on.
    for (const [name, body] of created) {
      if (always || body.count === undefined) continue;
      for (const v of String(body.count).matchAll(/var\.([a-z_]+)/g))
        assert.match(where, new RegExp(`\`${v[1]}\``), `${role} row: ${name} exists with ${v[1]}`);
    }
    for (const name of created.keys()) {
      const id = String(created.get(name)?.role_id ?? "");
      const literal = /^[A-Za-z]+$/.test(id) ? id : undefined;
      if (literal) assert.match(row[2] ?? "", new RegExp(literal), `${role} row names ${literal}`);
    }
  }
  const orgGrants = resourcesOfType(tf, "google_organization_iam_member");
  assert.ok(orgGrants.size > 0);
  assert.ok(
    rows.some(
      (r) =>
        /organization/.test(r[0] ?? "") &&
        /resourcemanager\.organizationAdmin|iam\.securityAdmin/.test(r[1] ?? ""),
    ),
    "granting roles at organization scope needs a role that may set the organization's IAM policy",
  );
});

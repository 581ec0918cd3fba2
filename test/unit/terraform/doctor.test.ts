import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ENTRY_POINT_NAMES,
  FUNCTIONS,
  PROJECT_ROLES,
  REQUIRED_APIS,
  SECRETS,
} from "../../../functions/src/doctor/expectations.js";
import { arr, loadTerraform, local, obj, str, strings, type Terraform } from "./hcl.js";

const tf: Terraform = await loadTerraform();

test("ferret doctor expects the APIs Terraform enables", () => {
  assert.deepEqual([...REQUIRED_APIS].sort(), strings(local(tf, "apis"), "local.apis").sort());
});

test("ferret doctor expects each function under Terraform's service name and service account", () => {
  const table = obj(local(tf, "functions"), "local.functions");
  const accounts = obj(local(tf, "service_accounts"), "local.service_accounts");
  assert.deepEqual([...ENTRY_POINT_NAMES].sort(), Object.keys(table).sort());
  for (const name of ENTRY_POINT_NAMES) {
    assert.equal(FUNCTIONS[name].service, str(obj(table[name], name).name, "name"), `${name}: service`);
    assert.equal(FUNCTIONS[name].accountId, str(obj(accounts[name], name).account_id, "account_id"), name);
  }
});

test("ferret doctor expects exactly the project-level roles Terraform grants each function", () => {
  const granted = new Map<string, string[]>();
  for (const g of arr(local(tf, "grants"), "local.grants").map((row) => obj(row, "grant"))) {
    if (g.scope !== "project") continue;
    const sa = str(g.sa, "sa");
    granted.set(sa, [...(granted.get(sa) ?? []), str(g.role, "role")]);
  }
  for (const name of ENTRY_POINT_NAMES)
    assert.deepEqual([...PROJECT_ROLES[name]].sort(), (granted.get(name) ?? []).sort(), name);
});

test("ferret doctor knows every secret and the variable it is mounted as", () => {
  const secrets = Object.keys(obj(local(tf, "secrets"), "local.secrets"));
  assert.deepEqual(SECRETS.map((s) => s.secretId).sort(), secrets.map((k) => `ferret-${k}`).sort());
  const secretEnv = obj(local(tf, "secret_env"), "local.secret_env");
  for (const { secretId, env } of SECRETS) {
    const mountedAs = Object.values(secretEnv).flatMap((m) =>
      Object.entries(obj(m, "secret_env")).flatMap(([k, v]) =>
        `ferret-${String(v)}` === secretId ? [k] : [],
      ),
    );
    assert.ok(mountedAs.length > 0 && mountedAs.every((k) => k === env), `${secretId} is mounted as ${env}`);
  }
});

/**
 * What Terraform gives each function, read from terraform/*.tf (no `terraform` binary, no
 * provider): the environment variables, the secrets mounted as environment variables, and the
 * roles its service account holds, for a given set of variable values.
 *
 * The expressions in the environment contract are evaluated by a small interpreter covering the
 * HCL the contract uses (references to variables, locals and resource attributes, string
 * templates, tostring/coalesce/concat/contains/join/length/min/max/sha256/substr, + - * /, comparisons, the conditional
 * operator, lists). Anything else is an error naming the expression, so a new construct in the
 * contract fails these tests loudly instead of being skipped.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Terraform expressions.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import {
  arr,
  blocks,
  type Json,
  type JsonObject,
  local,
  norm,
  obj,
  REPO_ROOT,
  resource,
  str,
  strings,
  type Terraform,
} from "../../unit/terraform/hcl.js";

interface JsepNode {
  type: string;
  [key: string]: unknown;
}
type Jsep = ((expression: string) => JsepNode) & {
  addBinaryOp(op: string, precedence: number): void;
  addUnaryOp(op: string): void;
};
const jsep = createRequire(import.meta.url)("jsep") as Jsep;
// HCL's logical operators are the C ones, which jsep knows; it lacks none the contract uses.

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

export type Variables = Record<string, Value>;

export class TerraformEvalError extends Error {
  override readonly name = "TerraformEvalError";
}

/** Variable defaults, including the optional() attribute defaults of var.functions. */
export function defaultVariables(tf: Terraform): Variables {
  const out: Variables = {};
  for (const [name, decl] of tf.variables) {
    if (name === "functions") out[name] = functionsDefaults(str(decl.type, "var.functions type"));
    else if ("default" in decl) out[name] = decl.default as Value;
  }
  return out;
}

function functionsDefaults(type: string): Value {
  const out: { [key: string]: Value } = {};
  for (const [, name, body = ""] of type.matchAll(/(\w+)\s*=\s*optional\(object\(\{([^}]*)\}\),\s*\{\}\)/g)) {
    const attrs: { [key: string]: Value } = {};
    for (const [, attr, kind, raw] of body.matchAll(
      /(\w+)\s*=\s*optional\((string|number)(?:,\s*([^)]+))?\)/g,
    )) {
      if (!attr) continue;
      attrs[attr] = raw === undefined ? null : kind === "number" ? Number(raw) : JSON.parse(raw);
    }
    if (name) out[name] = attrs;
  }
  return out;
}

/** Required variables, as docs/deploy.md tells a deployer to set them. */
export async function exampleVariables(): Promise<Variables> {
  const { parseHclFile } = await import("../../unit/terraform/hcl.js");
  const parsed = await parseHclFile(`${REPO_ROOT}/examples/terraform.tfvars.example`);
  return parsed as Variables;
}

/**
 * Attributes Google assigns at apply time that an environment is built from, with the stand-in
 * values the parity tests use: the project number and the console's backend service id, which
 * make IAP's audience (FERRET_CONSOLE_IAP_AUDIENCE, terraform/console.tf). Keyed by the
 * reference without its count index.
 */
export const AFTER_APPLY: Readonly<Record<string, Value>> = {
  "data.google_project.ferret.number": "123456789012",
  "google_compute_backend_service.console.generated_id": "5550123456789012345",
};

export class Evaluator {
  constructor(
    private readonly tf: Terraform,
    private readonly vars: Variables,
    private readonly each?: { key: string; value: Value },
    private readonly afterApply: Readonly<Record<string, Value>> = {},
  ) {}

  /** Evaluates an attribute as hcl2json renders it: literal JSON, or strings holding ${...}. */
  value(v: Json | undefined, what: string): Value {
    if (v === undefined) throw new TerraformEvalError(`${what}: not set`);
    if (typeof v === "string") return this.template(v, what);
    if (Array.isArray(v)) return v.map((item, i) => this.value(item, `${what}[${i}]`));
    if (v !== null && typeof v === "object") {
      const out: { [key: string]: Value } = {};
      for (const [k, item] of Object.entries(v)) out[k] = this.value(item, `${what}.${k}`);
      return out;
    }
    return v;
  }

  /** "${expr}" evaluates to the expression's value; anything else is a string template. */
  template(source: string, what: string): Value {
    const parts = splitTemplate(source, what);
    const only = parts[0];
    if (parts.length === 1 && only?.kind === "expr") return this.expression(only.text, what);
    return parts
      .map((p) => (p.kind === "text" ? p.text : toStringValue(this.expression(p.text, what), what)))
      .join("");
  }

  expression(text: string, what: string): Value {
    let ast: JsepNode;
    try {
      ast = jsep(text);
    } catch (error) {
      throw new TerraformEvalError(`${what}: cannot parse \${${text}}: ${(error as Error).message}`);
    }
    return this.node(ast, `${what} \${${text}}`);
  }

  private node(n: JsepNode, what: string): Value {
    switch (n.type) {
      case "Literal":
        // A quoted string inside an expression is a template too ("a-${x}").
        if (typeof n.value === "string" && n.value.includes("${")) return this.template(n.value, what);
        return n.value as Value;
      case "ArrayExpression":
        return (n.elements as JsepNode[]).map((e) => this.node(e, what));
      case "ConditionalExpression":
        return this.node(n.test as JsepNode, what) === true
          ? this.node(n.consequent as JsepNode, what)
          : this.node(n.alternate as JsepNode, what);
      case "UnaryExpression": {
        const arg = this.node(n.argument as JsepNode, what);
        if (n.operator === "!") return !arg;
        if (n.operator === "-" && typeof arg === "number") return -arg;
        break;
      }
      case "BinaryExpression":
        return binary(
          String(n.operator),
          this.node(n.left as JsepNode, what),
          this.node(n.right as JsepNode, what),
          what,
        );
      case "CallExpression":
        return this.call(n, what);
      case "Identifier":
      case "MemberExpression":
        return this.reference(n, what);
    }
    throw new TerraformEvalError(`${what}: unsupported ${n.type}`);
  }

  private call(n: JsepNode, what: string): Value {
    const callee = n.callee as JsepNode;
    if (callee.type !== "Identifier") throw new TerraformEvalError(`${what}: unsupported call`);
    // try() evaluates its arguments in order and returns the first without an error
    // (https://developer.hashicorp.com/terraform/language/functions/try), so they stay unevaluated here.
    if (callee.name === "try") {
      for (const a of n.arguments as JsepNode[]) {
        try {
          return this.node(a, what);
        } catch (error) {
          if (!(error instanceof TerraformEvalError)) throw error;
        }
      }
      throw new TerraformEvalError(`${what}: no argument of try() evaluated without an error`);
    }
    const args = (n.arguments as JsepNode[]).map((a) => this.node(a, what));
    switch (callee.name) {
      case "lookup": {
        // lookup(map, key, default): https://developer.hashicorp.com/terraform/language/functions/lookup
        const [map, key, fallback] = args;
        if (map === null || typeof map !== "object" || Array.isArray(map) || typeof key !== "string")
          throw new TerraformEvalError(`${what}: lookup(map, key, default)`);
        if (key in map) return map[key] ?? null;
        if (args.length < 3)
          throw new TerraformEvalError(`${what}: lookup found no ${key} and has no default`);
        return fallback ?? null;
      }
      case "tostring":
        return toStringValue(args[0] ?? null, what);
      case "coalesce": {
        const found = args.find((a) => a !== null && a !== "");
        if (found === undefined) throw new TerraformEvalError(`${what}: coalesce of nothing`);
        return found;
      }
      case "concat":
        return args.flatMap((a) => {
          if (!Array.isArray(a)) throw new TerraformEvalError(`${what}: concat of a non-list`);
          return a;
        });
      case "contains":
        return Array.isArray(args[0]) && args[0].includes(args[1] ?? null);
      case "join": {
        const [separator, list] = args;
        if (typeof separator !== "string" || !Array.isArray(list))
          throw new TerraformEvalError(`${what}: join(separator, list)`);
        return list.map((item) => toStringValue(item, what)).join(separator);
      }
      case "length": {
        const [v] = args;
        if (typeof v === "string") return [...v].length;
        if (Array.isArray(v)) return v.length;
        if (v !== null && typeof v === "object") return Object.keys(v).length;
        throw new TerraformEvalError(`${what}: length of ${JSON.stringify(v)}`);
      }
      case "sha256": {
        const [text] = args;
        if (typeof text !== "string") throw new TerraformEvalError(`${what}: sha256 of a non-string`);
        return createHash("sha256").update(text, "utf8").digest("hex");
      }
      case "substr": {
        // substr(string, offset, length); length -1 means to the end.
        const [text, offset, length] = args;
        if (typeof text !== "string" || typeof offset !== "number" || typeof length !== "number")
          throw new TerraformEvalError(`${what}: substr(string, offset, length)`);
        const chars = [...text];
        return chars.slice(offset, length < 0 ? undefined : offset + length).join("");
      }
      case "min":
      case "max": {
        const numbers = args.map((a) => {
          if (typeof a !== "number") throw new TerraformEvalError(`${what}: ${callee.name} of a non-number`);
          return a;
        });
        return callee.name === "min" ? Math.min(...numbers) : Math.max(...numbers);
      }
    }
    throw new TerraformEvalError(`${what}: unsupported function ${String(callee.name)}()`);
  }

  /** var.x…, local.x…, each.key/value…, <resource type>.<name>.<attribute>… */
  private reference(n: JsepNode, what: string): Value {
    const path: (string | number)[] = [];
    let cursor: JsepNode = n;
    while (cursor.type === "MemberExpression") {
      const property = cursor.property as JsepNode;
      if (cursor.computed) {
        const key = this.node(property, what);
        if (typeof key !== "string" && typeof key !== "number")
          throw new TerraformEvalError(`${what}: index must be a string or number`);
        path.unshift(key);
      } else path.unshift(String(property.name));
      cursor = cursor.object as JsepNode;
    }
    if (cursor.type !== "Identifier") throw new TerraformEvalError(`${what}: unsupported reference`);
    const root = String(cursor.name);
    const walk = (start: Value, rest: (string | number)[]): Value =>
      rest.reduce<Value>((v, key) => {
        if (Array.isArray(v) && typeof key === "number") return v[key] ?? null;
        if (v !== null && typeof v === "object" && !Array.isArray(v) && String(key) in v)
          return v[String(key)] ?? null;
        throw new TerraformEvalError(`${what}: no ${String(key)} in ${JSON.stringify(v)}`);
      }, start);
    if (root === "var") {
      const [name, ...rest] = path;
      if (typeof name !== "string" || !(name in this.vars))
        throw new TerraformEvalError(`${what}: var.${String(name)} has no value`);
      return walk(this.vars[name] ?? null, rest);
    }
    if (root === "local") {
      const [name, ...rest] = path;
      return walk(this.value(local(this.tf, String(name)), `local.${String(name)}`), rest);
    }
    if (root === "each") {
      if (!this.each) throw new TerraformEvalError(`${what}: each outside for_each`);
      const [which, ...rest] = path;
      return walk(which === "key" ? this.each.key : this.each.value, rest);
    }
    const known = [root, ...path.filter((p) => typeof p === "string")].join(".");
    if (known in this.afterApply) return this.afterApply[known] ?? null;
    // A resource attribute Terraform knows before apply only when it is set in configuration.
    const [name, attr, ...rest] = path;
    const body = resource(this.tf, `${root}.${String(name)}`);
    if (typeof attr !== "string" || !(attr in body))
      throw new TerraformEvalError(
        `${what}: ${root}.${String(name)}.${String(attr)} is only known after apply`,
      );
    return walk(this.value(body[attr], `${root}.${String(name)}.${attr}`), rest);
  }
}

function binary(op: string, a: Value, b: Value, what: string): Value {
  const num = (v: Value): number => {
    if (typeof v !== "number") throw new TerraformEvalError(`${what}: ${op} needs numbers`);
    return v;
  };
  switch (op) {
    case "+":
      return num(a) + num(b);
    case "-":
      return num(a) - num(b);
    case "*":
      return num(a) * num(b);
    case "/":
      return num(a) / num(b);
    case "==":
      return JSON.stringify(a) === JSON.stringify(b);
    case "!=":
      return JSON.stringify(a) !== JSON.stringify(b);
    case "<":
      return num(a) < num(b);
    case "<=":
      return num(a) <= num(b);
    case ">":
      return num(a) > num(b);
    case ">=":
      return num(a) >= num(b);
    case "&&":
      return a === true && b === true;
    case "||":
      return a === true || b === true;
  }
  throw new TerraformEvalError(`${what}: unsupported operator ${op}`);
}

function toStringValue(v: Value, what: string): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  throw new TerraformEvalError(`${what}: tostring of ${JSON.stringify(v)}`);
}

function splitTemplate(source: string, what: string): { kind: "text" | "expr"; text: string }[] {
  const parts: { kind: "text" | "expr"; text: string }[] = [];
  let i = 0;
  let text = "";
  while (i < source.length) {
    if (source.startsWith("$${", i)) {
      text += "${";
      i += 3;
    } else if (source.startsWith("${", i)) {
      let depth = 1;
      let j = i + 2;
      for (; j < source.length && depth > 0; j++) {
        if (source[j] === "{") depth += 1;
        else if (source[j] === "}") depth -= 1;
      }
      if (depth !== 0) throw new TerraformEvalError(`${what}: unterminated \${ in ${source}`);
      if (text) parts.push({ kind: "text", text });
      text = "";
      parts.push({ kind: "expr", text: source.slice(i + 2, j - 1).trim() });
      i = j;
    } else {
      text += source[i];
      i += 1;
    }
  }
  if (text || parts.length === 0) parts.push({ kind: "text", text });
  return parts;
}

export interface FunctionDeployment {
  /** Plain environment variables (service_config.environment_variables). */
  env: Record<string, string>;
  /** Secret environment variables: variable name => key in local.secrets. */
  secrets: Record<string, string>;
}

/**
 * The environment and secrets Terraform gives each function, keyed by entry point; the web
 * console (terraform/console.tf) is there under "console" when the variables enable it.
 */
export function functionDeployments(tf: Terraform, vars: Variables): Map<string, FunctionDeployment> {
  const ev = new Evaluator(tf, vars, undefined, AFTER_APPLY);
  // The shapes these read are pinned by test/unit/terraform/functions.test.ts.
  const fn = resource(tf, "google_cloudfunctions2_function.function");
  const [service] = blocks(fn, "service_config", "function");
  if (service?.environment_variables !== "${local.function_env[each.key]}")
    throw new TerraformEvalError("environment_variables is no longer local.function_env[each.key]");
  const consoleFn = resource(tf, "google_cloudfunctions2_function.console");
  const [consoleService] = blocks(consoleFn, "service_config", "console");
  if (consoleService?.environment_variables !== '${local.function_env["console"]}')
    throw new TerraformEvalError(
      'the console\'s environment_variables is no longer local.function_env["console"]',
    );
  if (consoleFn.count !== "${var.enable_console ? 1 : 0}")
    throw new TerraformEvalError("the console function is no longer deployed exactly with enable_console");
  if (
    norm(str(local(tf, "function_env"), "local.function_env")) !==
    '${{ for key, groups in local.function_env_groups : key => { for name, value in merge([for group in groups : local.env_groups[group]]...) : name => value if value != "" } }}'
  )
    throw new TerraformEvalError("function_env no longer merges the groups and drops empty values");
  const [secretBlock] = blocks(obj(service.dynamic, "dynamic"), "secret_environment_variables", "dynamic");
  if (
    norm(str(secretBlock?.for_each, "secret for_each")) !==
    "${{ for env, secret in local.secret_env[each.key] : env => secret if contains(local.enabled_secrets, secret) }}"
  )
    throw new TerraformEvalError(
      "secret_environment_variables no longer filters secret_env by enabled_secrets",
    );

  const groups = obj(local(tf, "env_groups"), "env_groups");
  const perFunction = obj(local(tf, "function_env_groups"), "function_env_groups");
  const secretEnv = obj(local(tf, "secret_env"), "secret_env");
  const enabled = ev.value(local(tf, "enabled_secrets"), "local.enabled_secrets");
  if (!Array.isArray(enabled)) throw new TerraformEvalError("local.enabled_secrets is not a list");

  const out = new Map<string, FunctionDeployment>();
  for (const [name, groupNames] of Object.entries(perFunction)) {
    if (name === "console" && vars.enable_console !== true) continue;
    const merged: Record<string, string> = {};
    for (const group of strings(groupNames, `function_env_groups.${name}`)) {
      for (const [key, raw] of Object.entries(obj(groups[group], `env_groups.${group}`))) {
        merged[key] = toStringValue(ev.value(raw, `env_groups.${group}.${key}`), key);
      }
    }
    // function_env leaves empty values unset.
    const env = Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== ""));
    const secrets: Record<string, string> = {};
    for (const [key, secret] of Object.entries(obj(secretEnv[name], `secret_env.${name}`))) {
      if (typeof secret === "string" && enabled.includes(secret)) secrets[key] = secret;
    }
    out.set(name, { env, secrets });
  }
  return out;
}

/** The workflow's user_env_vars that Terraform knows before apply (URLs come from the functions). */
export function workflowEnv(tf: Terraform, vars: Variables): Record<string, string> {
  const ev = new Evaluator(tf, vars);
  const envVars = obj(resource(tf, "google_workflows_workflow.investigate").user_env_vars, "user_env_vars");
  const out: Record<string, string> = {};
  for (const [key, raw] of Object.entries(envVars)) {
    if (key.endsWith("_URL")) continue;
    out[key] = toStringValue(ev.value(raw, `user_env_vars.${key}`), key);
  }
  return out;
}

export interface Grant {
  sa: string;
  scope: string;
  target: string | null;
  role: string;
}

export function grants(tf: Terraform): Grant[] {
  return arr(local(tf, "grants"), "local.grants").map((g, i) => {
    const row = obj(g, `local.grants[${i}]`);
    return {
      sa: str(row.sa, "sa"),
      scope: str(row.scope, "scope"),
      target: typeof row.target === "string" ? row.target : null,
      role: str(row.role, "role"),
    };
  });
}

export type { JsonObject };

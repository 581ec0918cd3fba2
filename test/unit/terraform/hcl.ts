/**
 * Loads terraform/*.tf through @cdktf/hcl2json (the HCL parser Terraform uses, compiled to
 * WebAssembly) and offers small, strict accessors for the consistency tests. Expressions stay
 * strings such as "${local.functions}"; the tests compare them after whitespace normalisation.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const TERRAFORM_DIR = join(REPO_ROOT, "terraform");

interface Hcl2Json {
  parse(filename: string, contents: string): Promise<unknown>;
}

// Loaded with require so that the package's type declarations (which pull the DOM lib into the
// whole program) stay out of the project's type check.
const hcl2json = createRequire(import.meta.url)("@cdktf/hcl2json") as Hcl2Json;

export interface Terraform {
  /** "type.name" => block body */
  readonly resources: ReadonlyMap<string, JsonObject>;
  readonly data: ReadonlyMap<string, JsonObject>;
  readonly variables: ReadonlyMap<string, JsonObject>;
  readonly outputs: ReadonlyMap<string, JsonObject>;
  readonly providers: ReadonlyMap<string, JsonObject>;
  readonly terraformBlocks: readonly JsonObject[];
  readonly locals: Readonly<JsonObject>;
  /** Parsed form of every file, for whole-configuration scans. */
  readonly files: ReadonlyMap<string, JsonObject>;
}

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function obj(value: Json | undefined, what: string): JsonObject {
  if (!isObject(value)) throw new Error(`${what}: expected an object, got ${JSON.stringify(value)}`);
  return value;
}

export function arr(value: Json | undefined, what: string): Json[] {
  if (!Array.isArray(value)) throw new Error(`${what}: expected a list, got ${JSON.stringify(value)}`);
  return value;
}

export function str(value: Json | undefined, what: string): string {
  if (typeof value !== "string") throw new Error(`${what}: expected a string, got ${JSON.stringify(value)}`);
  return value;
}

export function strings(value: Json | undefined, what: string): string[] {
  return arr(value, what).map((item, i) => str(item, `${what}[${i}]`));
}

/** A nested block that must appear exactly once (hcl2json renders blocks as lists). */
export function block(parent: JsonObject, name: string, what: string): JsonObject {
  const list = arr(parent[name], `${what}.${name}`);
  if (list.length !== 1) throw new Error(`${what}.${name}: expected one block, found ${list.length}`);
  return obj(list[0], `${what}.${name}`);
}

/** Every occurrence of a nested block. */
export function blocks(parent: JsonObject, name: string, what: string): JsonObject[] {
  const value = parent[name];
  if (value === undefined) return [];
  return arr(value, `${what}.${name}`).map((item, i) => obj(item, `${what}.${name}[${i}]`));
}

/** Collapses whitespace so that HCL formatting does not matter when comparing expressions. */
export function norm(expression: string): string {
  return expression.replace(/\s+/g, " ").replace(/\(\s/g, "(").replace(/\s\)/g, ")").trim();
}

/** Substitutes ${each.key} and ${each.value.<attr>} in a template string; fails on anything else. */
export function renderEach(template: string, key: string, value: JsonObject): string {
  const rendered = template.replace(
    /\$\{each\.(key|value\.([A-Za-z_][A-Za-z0-9_]*))\}/g,
    (_m, what: string, attr) => {
      if (what === "key") return key;
      const v = value[attr as string];
      if (typeof v !== "string") throw new Error(`each.value.${attr} is not a string for ${key}`);
      return v;
    },
  );
  if (rendered.includes("${")) throw new Error(`cannot render ${template}: unsupported interpolation`);
  return rendered;
}

/**
 * Renders a Terraform template the way templatefile() does when the template has no variables
 * and no directives: `$${` becomes `${` and `%%{` becomes `%{`. Unescaped interpolations or
 * directives are reported, since they would be evaluated by Terraform.
 */
export function renderTemplateWithoutVariables(template: string): string {
  const unescaped = /(?<!\$)\$\{|(?<!%)%\{/.exec(template.replace(/\$\$\{|%%\{/g, ""));
  if (unescaped) {
    const line = template.slice(0, unescaped.index).split("\n").length;
    throw new Error(`template has an unescaped "${unescaped[0]}" near line ${line}`);
  }
  return template.replace(/\$\$\{|%%\{/g, (escaped) => escaped.slice(1));
}

function camelToUpperSnake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

/** FERRET_<NAME>_URL, the workflow env var through which the YAML reaches an HTTP function. */
export function functionUrlEnvVar(entryPoint: string): string {
  return `FERRET_${camelToUpperSnake(entryPoint)}_URL`;
}

/** FERRET_<NAME>_TIMEOUT_SECONDS, the workflow env var holding an HTTP function's own timeout. */
export function functionTimeoutEnvVar(entryPoint: string): string {
  return `FERRET_${camelToUpperSnake(entryPoint)}_TIMEOUT_SECONDS`;
}

/** Each function's default timeout_seconds, read from the optional() defaults of var.functions. */
export function functionTimeoutDefaults(tf: Terraform): Map<string, number> {
  const type = str(tf.variables.get("functions")?.type, "var.functions type");
  const out = new Map<string, number>();
  for (const [, name, body = ""] of type.matchAll(/(\w+)\s*=\s*optional\(object\(\{([^}]*)\}\),\s*\{\}\)/g)) {
    const timeout = /timeout_seconds\s*=\s*optional\(number,\s*(\d+)\)/.exec(body);
    if (!name || !timeout?.[1]) throw new Error(`var.functions.${name}: no timeout_seconds default`);
    out.set(name, Number(timeout[1]));
  }
  return out;
}

function addUnique(target: Map<string, JsonObject>, key: string, value: JsonObject, file: string): void {
  if (target.has(key)) throw new Error(`${file}: ${key} is declared twice`);
  target.set(key, value);
}

function single(value: Json, what: string): JsonObject {
  const list = arr(value, what);
  if (list.length !== 1) throw new Error(`${what}: declared ${list.length} times`);
  return obj(list[0], what);
}

let cached: Promise<Terraform> | undefined;

export function loadTerraform(): Promise<Terraform> {
  cached ??= load(TERRAFORM_DIR);
  return cached;
}

export async function parseHclFile(path: string): Promise<JsonObject> {
  const parsed = (await hcl2json.parse(path, readFileSync(path, "utf8"))) as Json;
  return obj(parsed, path);
}

async function load(dir: string): Promise<Terraform> {
  const resources = new Map<string, JsonObject>();
  const data = new Map<string, JsonObject>();
  const variables = new Map<string, JsonObject>();
  const outputs = new Map<string, JsonObject>();
  const providers = new Map<string, JsonObject>();
  const terraformBlocks: JsonObject[] = [];
  const locals: JsonObject = {};
  const files = new Map<string, JsonObject>();

  const tfFiles = readdirSync(dir)
    .filter((f) => f.endsWith(".tf"))
    .sort();
  for (const file of tfFiles) {
    const parsed = await parseHclFile(join(dir, file));
    files.set(file, parsed);
    for (const [kind, body] of Object.entries(parsed)) {
      switch (kind) {
        case "resource":
        case "data": {
          const target = kind === "resource" ? resources : data;
          for (const [type, named] of Object.entries(obj(body, `${file} ${kind}`))) {
            for (const [name, decl] of Object.entries(obj(named, `${file} ${kind} ${type}`))) {
              addUnique(target, `${type}.${name}`, single(decl, `${file} ${type}.${name}`), file);
            }
          }
          break;
        }
        case "variable":
        case "output": {
          const target = kind === "variable" ? variables : outputs;
          for (const [name, decl] of Object.entries(obj(body, `${file} ${kind}`))) {
            addUnique(target, name, single(decl, `${file} ${kind}.${name}`), file);
          }
          break;
        }
        case "provider":
          for (const [name, decl] of Object.entries(obj(body, `${file} provider`))) {
            addUnique(providers, name, single(decl, `${file} provider.${name}`), file);
          }
          break;
        case "locals":
          for (const localsBlock of arr(body, `${file} locals`)) {
            for (const [name, value] of Object.entries(obj(localsBlock, `${file} locals`))) {
              if (name in locals) throw new Error(`${file}: local.${name} is declared twice`);
              locals[name] = value;
            }
          }
          break;
        case "terraform":
          for (const tfBlock of arr(body, `${file} terraform`)) terraformBlocks.push(obj(tfBlock, file));
          break;
        default:
          throw new Error(`${file}: unexpected top-level block "${kind}"`);
      }
    }
  }
  return { resources, data, variables, outputs, providers, terraformBlocks, locals, files };
}

export function resource(tf: Terraform, address: string): JsonObject {
  const found = tf.resources.get(address);
  if (!found) throw new Error(`resource ${address} is not declared in terraform/`);
  return found;
}

export function resourcesOfType(tf: Terraform, type: string): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  for (const [address, body] of tf.resources) {
    if (address.startsWith(`${type}.`)) out.set(address.slice(type.length + 1), body);
  }
  return out;
}

export function local(tf: Terraform, name: string): Json {
  const value = tf.locals[name];
  if (value === undefined) throw new Error(`local.${name} is not declared in terraform/`);
  return value;
}

/** Every string anywhere in a parsed value (keys included), for whole-configuration scans. */
export function allStrings(value: Json): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(allStrings);
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => [k, ...allStrings(v)]);
  return [];
}

// ---------------------------------------------------------------------------------------------
// Expressions. hcl2json leaves every expression as its source text ("${var.x}"); these parse it
// with the same library's expression parser, so tests assert on what an expression is (which
// function, which reference, which constant) rather than on how it is written.
// ---------------------------------------------------------------------------------------------

/** The part of hcl2json's expression syntax tree the tests read. */
export interface ExpressionNode {
  type: string;
  children: ExpressionNode[];
  meta?: {
    value?: string;
    name?: string;
    type?: string;
    items?: Record<string, string>;
    traversal?: { type: string; segment: string }[];
    conditionExpression?: string;
    trueExpression?: string;
    falseExpression?: string;
    lhsExpression?: string;
    rhsExpression?: string;
    operator?: string;
  };
}

interface Hcl2JsonExpressions {
  getExpressionAst(filename: string, expression: string): Promise<ExpressionNode | null>;
}

/**
 * hcl2json renders an attribute holding one expression as "${x}"; anything else ("a-${x}",
 * "${a}-${b}") is a template. The first interpolation is the whole string when its closing
 * brace is the last character (braces of objects and nested templates inside it balance).
 */
function bareExpression(source: string): string {
  const text = source.trim();
  if (text.startsWith("${")) {
    let depth = 0;
    for (let i = 1; i < text.length; i++) {
      if (text[i] === "{") depth++;
      else if (text[i] === "}" && --depth === 0) {
        if (i === text.length - 1) return text.slice(2, -1);
        break;
      }
    }
  }
  return JSON.stringify(source);
}

/** Parses one expression (as hcl2json left it in an attribute) into its syntax tree. */
export async function expression(source: Json | undefined, what: string): Promise<ExpressionNode> {
  const text = typeof source === "string" ? source : JSON.stringify(source);
  const ast = await (hcl2json as unknown as Hcl2JsonExpressions).getExpressionAst(
    `${what}.tf`,
    bareExpression(text),
  );
  if (!ast) throw new Error(`${what}: cannot parse ${text}`);
  return ast;
}

/** The segments of a reference such as google_pubsub_topic.topic["x"].id: ["google_pubsub_topic", "topic", "x", "id"]. */
export function traversal(node: ExpressionNode, what: string): string[] {
  if (node.type !== "scopeTraversal" || !node.meta?.traversal)
    throw new Error(`${what}: expected a reference, got ${node.type} ${node.meta?.value ?? ""}`);
  return node.meta.traversal.map((part) =>
    part.type === "indexTraversal" ? (JSON.parse(part.segment) as string) : part.segment,
  );
}

/** The reference an attribute holds, e.g. ["var", "sweep_schedule"]. */
export async function referenceOf(source: Json | undefined, what: string): Promise<string[]> {
  return traversal(await expression(source, what), what);
}

/**
 * The value of an expression made only of constants and the pure encoding functions the
 * configuration uses on them (jsonencode, base64encode), as Terraform would compute it; fails
 * on anything that needs Terraform's state or variables.
 */
export async function constant(source: Json | undefined, what: string): Promise<Json> {
  return evaluate(await expression(source, what), what);
}

async function evaluate(node: ExpressionNode, what: string): Promise<Json> {
  switch (node.type) {
    case "literalValue":
      if (node.meta?.type === "string") return node.meta.value ?? "";
      return JSON.parse(node.meta?.value ?? "null") as Json;
    case "template": {
      const [only] = node.children;
      if (node.children.length !== 1 || only?.type !== "literalValue")
        throw new Error(`${what}: not a constant string: ${node.meta?.value}`);
      return evaluate(only, what);
    }
    case "tuple":
      return Promise.all(node.children.map((child) => evaluate(child, what)));
    case "object": {
      const out: JsonObject = {};
      for (const [key, value] of Object.entries(node.meta?.items ?? {}))
        out[key] = await evaluate(await expression(`\${${value}}`, what), `${what}.${key}`);
      return out;
    }
    case "function": {
      const [arg] = node.children;
      if (node.children.length !== 1 || !arg)
        throw new Error(`${what}: ${node.meta?.name} takes one argument here`);
      const value = await evaluate(arg, what);
      if (node.meta?.name === "jsonencode") return JSON.stringify(value);
      if (node.meta?.name === "base64encode" && typeof value === "string")
        return Buffer.from(value, "utf8").toString("base64");
      throw new Error(`${what}: ${node.meta?.name}() is not evaluated by these tests`);
    }
    default:
      throw new Error(`${what}: not a constant: ${node.type} ${node.meta?.value ?? ""}`);
  }
}

/**
 * An expression's meaning in a canonical form that ignores how it is written (spacing, line
 * breaks, quoting): literals as themselves; references as `{ ref: [...] }` with a dynamic index
 * as a nested `{ ref }` (google_pubsub_topic.topic[each.key].id is
 * `ref("google_pubsub_topic", "topic", ref("each", "key"), "id")`); `{ call, args }`;
 * `{ template: [...] }` for interpolated strings; `{ for, in, key?, value, if? }`;
 * `{ op, lhs, rhs }`; `{ cond, ifTrue, ifFalse }`; tuples as arrays; an object of constants as
 * its value, one that computes as `{ object: {...} }`. A `[for …]` is a `{ for }` without `key`.
 */
export type Shape =
  | string
  | number
  | boolean
  | null
  | Shape[]
  | { ref: (string | number | Shape)[] }
  | { call: string; args: Shape[] }
  | { template: Shape[] }
  | { for: string[]; in: Shape; key?: Shape; value: Shape; if?: Shape }
  | { op: string; lhs: Shape; rhs?: Shape }
  | { cond: Shape; ifTrue: Shape; ifFalse: Shape }
  | { object: { [key: string]: Shape } }
  /** An object of constants, as its value. */
  | { [key: string]: Shape };

export function ref(...segments: (string | number | Shape)[]): Shape {
  return { ref: segments };
}

function isRef(value: Shape | undefined): value is { ref: (string | number | Shape)[] } {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    "ref" in value &&
    Array.isArray(value.ref)
  );
}

export function call(name: string, ...args: Shape[]): Shape {
  return { call: name, args };
}

/** Each expression of a resource with for_each reads these. */
export const EACH_KEY = ref("each", "key");
export const eachValue = (attr: string): Shape => ref("each", "value", attr);

/** The canonical shape of the expression an attribute holds (see Shape). */
export async function shape(source: Json | undefined, what: string): Promise<Shape> {
  return shapeOf(await expression(source, what), what);
}

async function shapeOfText(text: string | undefined, what: string): Promise<Shape | undefined> {
  if (text === undefined || text === "") return undefined;
  return shapeOf(await expression(`\${${text}}`, what), what);
}

function segmentsOf(node: ExpressionNode): (string | number)[] {
  return (node.meta?.traversal ?? []).map((part) =>
    part.type === "indexTraversal" ? (JSON.parse(part.segment) as string | number) : part.segment,
  );
}

async function shapeOf(node: ExpressionNode, what: string): Promise<Shape> {
  const kids = (): Promise<Shape[]> => Promise.all(node.children.map((c) => shapeOf(c, what)));
  switch (node.type) {
    case "literalValue":
      return evaluate(node, what) as Promise<Shape>;
    case "tuple":
      return kids();
    case "object":
      return objectShape(node, what);
    case "template": {
      const parts = await kids();
      return parts.length === 1 && typeof parts[0] === "string" ? parts[0] : { template: parts };
    }
    case "templateWrap":
      return (await kids())[0] ?? null;
    case "scopeTraversal":
      return ref(...segmentsOf(node));
    case "relativeTraversal":
    case "index": {
      const [source, key] = await kids();
      const base = isRef(source) ? source.ref : [source ?? null];
      if (node.type === "index") {
        // A constant key (["x"], [0]) is a segment like in a traversal; a computed one stays a shape.
        const segment = typeof key === "string" || typeof key === "number" ? key : (key ?? null);
        return ref(...base, segment);
      }
      return ref(...base, ...segmentsOf(node));
    }
    case "function":
      return { call: node.meta?.name ?? "", args: await kids() };
    case "for": {
      const m = node.meta as Record<string, string | boolean | undefined>;
      const vars = [m.keyVar, m.valVar].filter((v): v is string => typeof v === "string" && v !== "");
      const out: Shape = {
        for: vars,
        in: (await shapeOfText(m.collectionExpression as string, what)) ?? null,
        value: (await shapeOfText(m.valueExpression as string, what)) ?? null,
      };
      const key = m.openRangeValue === "{" ? await shapeOfText(m.keyExpression as string, what) : undefined;
      const condition = await shapeOfText(m.conditionalExpression as string, what);
      return {
        ...out,
        ...(key !== undefined ? { key } : {}),
        ...(condition !== undefined ? { if: condition } : {}),
      };
    }
    case "binaryOp": {
      const [lhs, rhs] = await kids();
      return { op: node.meta?.operator ?? "", lhs: lhs ?? null, rhs: rhs ?? null };
    }
    case "unaryOp": {
      const [value] = await kids();
      return { op: node.meta?.operator ?? "", lhs: value ?? null };
    }
    case "conditional": {
      const [cond, then, otherwise] = await kids();
      return { cond: cond ?? null, ifTrue: then ?? null, ifFalse: otherwise ?? null };
    }
    default:
      throw new Error(`${what}: no shape for ${node.type} ${node.meta?.value ?? ""}`);
  }
}

/** An object of constants is its value (as in `constant`); one that computes stays `{ object }`. */
async function objectShape(node: ExpressionNode, what: string): Promise<Shape> {
  const out: { [key: string]: Shape } = {};
  let constantOnly = true;
  for (const [key, value] of Object.entries(node.meta?.items ?? {})) {
    const item = (await shapeOfText(value, `${what}.${key}`)) ?? null;
    if (item !== null && typeof item === "object") constantOnly = false;
    out[key] = item;
  }
  return constantOnly ? out : { object: out };
}

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { z } from "zod";
import { fromRoot } from "../platform/paths.js";
import { ROLES, type RoleName } from "../roles/index.js";

/**
 * What terraform/ deploys, read from the .tf files themselves so the local stack runs each
 * function and push subscription with the numbers production gets, not a second table that
 * drifts: per-function instance caps, request concurrency and timeouts (the `functions`
 * variable's defaults in terraform/variables.tf), the governor's concurrency default, the
 * push subscriptions' retry policy and delivery attempts (terraform/pubsub.tf), and who may
 * invoke each function (terraform/iam.tf). The files are
 * parsed with @cdktf/hcl2json, HashiCorp's HCL parser compiled to WebAssembly (the one
 * test/unit/terraform/hcl.ts uses); only the local stack and `ferret doctor` read them, from a
 * checkout, never a deployed function.
 */

interface AstNode {
  type: string;
  children: AstNode[];
  meta?: { name?: string; value?: string; type?: string; items?: Record<string, string> };
}

interface Hcl2Json {
  parse(filename: string, contents: string): Promise<unknown>;
  getExpressionAst(filename: string, expression: string): Promise<AstNode | null>;
}

// Loaded with require so that the package's type declarations (which pull the DOM lib into the
// whole program) stay out of the project's type check, as in test/unit/terraform/hcl.ts.
const hcl2json = createRequire(import.meta.url)("@cdktf/hcl2json") as Hcl2Json;

type Value = string | number | boolean | null | { [key: string]: Value };

/** A template or literal's value; anything computed is refused (a default must be a constant). */
function literal(node: AstNode, where: string): Value {
  if (node.type === "literalValue") {
    const raw = node.meta?.value ?? "";
    if (node.meta?.type === "number") return Number(raw);
    if (node.meta?.type === "bool") return raw === "true";
    return raw;
  }
  if (node.type === "template" && node.children.length === 1 && node.children[0]?.type === "literalValue")
    return String(node.children[0].meta?.value ?? "");
  if (node.type === "object" && Object.keys(node.meta?.items ?? {}).length === 0) return {};
  throw new Error(`${where}: a default that is not a constant (${node.meta?.value ?? node.type})`);
}

async function ast(expression: string, where: string): Promise<AstNode> {
  const node = await hcl2json.getExpressionAst(where, expression);
  if (!node) throw new Error(`${where}: could not parse ${expression}`);
  return node;
}

/**
 * The value Terraform gives an object type's attributes when the caller sets none: each
 * `optional(T, default)` attribute its default, `optional(T)` null, and an optional object
 * whose default is `{}` its own attributes' defaults
 * (https://developer.hashicorp.com/terraform/language/expressions/type-constraints#optional-object-type-attributes).
 */
async function typeDefaults(expression: string, where: string): Promise<Value> {
  const node = await ast(expression, where);
  if (node.type === "function" && node.meta?.name === "object") {
    const items = node.children[0]?.meta?.items ?? {};
    const out: { [key: string]: Value } = {};
    for (const [name, attribute] of Object.entries(items))
      out[name] = await attributeDefault(attribute, `${where}.${name}`);
    return out;
  }
  throw new Error(`${where}: expected object({...}), got ${node.meta?.value ?? node.type}`);
}

async function attributeDefault(expression: string, where: string): Promise<Value> {
  const node = await ast(expression, where);
  if (node.type !== "function" || node.meta?.name !== "optional") return null;
  const [type, fallback] = node.children;
  if (!fallback) return null;
  const value = literal(fallback, where);
  const isObjectType = type?.type === "function" && type.meta?.name === "object";
  if (isObjectType && typeof value === "object" && value !== null && Object.keys(value).length === 0)
    return typeDefaults(type.meta?.value ?? "", where);
  return value;
}

const ParsedFile = z.object({
  variable: z
    .record(z.string(), z.array(z.object({ type: z.string().optional(), default: z.unknown().optional() })))
    .optional(),
  resource: z.record(z.string(), z.record(z.string(), z.array(z.record(z.string(), z.unknown())))).optional(),
  locals: z.array(z.record(z.string(), z.unknown())).optional(),
});

/** One `locals` value, from whichever locals block of the file defines it. */
function localValue(parsed: z.infer<typeof ParsedFile>, name: string, file: string): unknown {
  const found = (parsed.locals ?? []).find((block) => name in block);
  if (!found) throw new Error(`terraform/${file} defines no local ${name}`);
  return found[name];
}

const Grants = z.array(
  z.object({ sa: z.string(), scope: z.string(), target: z.string().nullable(), role: z.string() }),
);
const ServiceAccounts = z.record(z.string(), z.object({ account_id: z.string() }));
const FunctionTable = z.record(z.string(), z.object({ public: z.boolean() }));

async function parseTf(file: string): Promise<z.infer<typeof ParsedFile>> {
  const path = fromRoot(`terraform/${file}`);
  return ParsedFile.parse(await hcl2json.parse(file, readFileSync(path, "utf8")));
}

/** The runtime settings of one function as Terraform deploys them by default. */
export const FunctionSettings = z.object({
  maxInstances: z.number().int().min(1),
  /**
   * Requests one instance takes at once. Unset in Terraform means the Cloud Functions (2nd gen)
   * default of 1 (ServiceConfig.max_instance_request_concurrency, "Defaults to 1":
   * https://cloud.google.com/functions/docs/reference/rest/v2/projects.locations.functions#serviceconfig).
   */
  concurrency: z.number().int().min(1),
  timeoutSeconds: z.number().int().min(1),
});
export type FunctionSettings = z.infer<typeof FunctionSettings>;

const FunctionDefaults = z.object({
  max_instances: z.number(),
  concurrency: z.number().nullable().optional(),
  timeout_seconds: z.number(),
});

export interface TerraformSettings {
  functions: Record<RoleName, FunctionSettings>;
  /** var.governor_max_concurrent's default (FERRET_GOVERNOR_MAX_CONCURRENT in every function). */
  governorMaxConcurrent: number;
  /** The push subscriptions' retry_policy and dead-letter attempts (terraform/pubsub.tf). */
  push: { minimumBackoffSeconds: number; maximumBackoffSeconds: number; maxDeliveryAttempts: number };
  /**
   * Who holds roles/run.invoker on each function (terraform/iam.tf's grants, and allUsers on the
   * public ones when slack_events_public is on, its default), as Terraform service-account keys
   * ("workflow", "pubsubPush") or "allUsers".
   */
  invokers: Record<RoleName, string[]>;
  /** Terraform service-account key → its account id (local.service_accounts). */
  accountIds: Record<string, string>;
}

function seconds(duration: unknown, where: string): number {
  const match = typeof duration === "string" ? /^(\d+)s$/.exec(duration) : null;
  if (!match?.[1])
    throw new Error(`${where}: expected a duration like "10s", got ${JSON.stringify(duration)}`);
  return Number(match[1]);
}

function variableDefault(parsed: z.infer<typeof ParsedFile>, name: string): unknown {
  const declaration = parsed.variable?.[name]?.[0];
  if (!declaration) throw new Error(`terraform/variables.tf declares no variable ${name}`);
  return declaration.default;
}

let cached: Promise<TerraformSettings> | undefined;

/** The settings terraform/ deploys when terraform.tfvars sets none of them (read once per process). */
export function terraformSettings(): Promise<TerraformSettings> {
  cached ??= readTerraformSettings();
  return cached;
}

async function readTerraformSettings(): Promise<TerraformSettings> {
  const variables = await parseTf("variables.tf");
  const functionsType = variables.variable?.functions?.[0]?.type;
  if (!functionsType) throw new Error("terraform/variables.tf: variable functions has no type");
  // hcl2json renders an expression as a "${…}" template; the type is the expression inside.
  const defaults = await typeDefaults(functionsType.replace(/^\$\{/, "").replace(/\}$/, ""), "var.functions");
  const perFunction = z.record(z.string(), FunctionDefaults).parse(defaults);
  const functions = Object.fromEntries(
    ROLES.map((role) => {
      const d = perFunction[role.name];
      if (!d) throw new Error(`terraform/variables.tf: var.functions has no entry for ${role.name}`);
      return [
        role.name,
        FunctionSettings.parse({
          maxInstances: d.max_instances,
          concurrency: d.concurrency ?? 1,
          timeoutSeconds: d.timeout_seconds,
        }),
      ];
    }),
  ) as Record<RoleName, FunctionSettings>;

  const iam = await parseTf("iam.tf");
  const grants = Grants.parse(localValue(iam, "grants", "iam.tf"));
  const accountIds = Object.fromEntries(
    Object.entries(ServiceAccounts.parse(localValue(iam, "service_accounts", "iam.tf"))).map(([key, sa]) => [
      key,
      sa.account_id,
    ]),
  );
  const main = await parseTf("main.tf");
  const table = FunctionTable.parse(localValue(main, "functions", "main.tf"));
  const publicOn = z.boolean().parse(variableDefault(variables, "slack_events_public"));
  const invokers = Object.fromEntries(
    ROLES.map((role) => [
      role.name,
      [
        ...grants
          .filter((g) => g.role === "roles/run.invoker" && g.scope === "function" && g.target === role.name)
          .map((g) => g.sa),
        ...(publicOn && table[role.name]?.public ? ["allUsers"] : []),
      ],
    ]),
  ) as Record<RoleName, string[]>;

  const pubsub = await parseTf("pubsub.tf");
  const push = pubsub.resource?.google_pubsub_subscription?.push?.[0];
  const retry = z.array(z.record(z.string(), z.unknown())).parse(push?.retry_policy)[0] ?? {};
  return {
    functions,
    governorMaxConcurrent: z
      .number()
      .int()
      .min(1)
      .parse(variableDefault(variables, "governor_max_concurrent")),
    push: {
      minimumBackoffSeconds: seconds(retry.minimum_backoff, "pubsub.tf retry_policy.minimum_backoff"),
      maximumBackoffSeconds: seconds(retry.maximum_backoff, "pubsub.tf retry_policy.maximum_backoff"),
      maxDeliveryAttempts: z.number().int().parse(variableDefault(variables, "pubsub_max_delivery_attempts")),
    },
    invokers,
    accountIds,
  };
}

/**
 * A push subscription's acknowledgement deadline for a function with this timeout, as
 * terraform/pubsub.tf sets it (`min(600, max(10, timeout_seconds))`: Pub/Sub takes 10–600 s,
 * https://cloud.google.com/pubsub/docs/subscription-properties#ack_deadline).
 * test/unit/local/terraform-settings.test.ts evaluates the .tf expression and fails if they part.
 */
export function pushAckDeadlineSeconds(timeoutSeconds: number): number {
  return Math.min(600, Math.max(10, timeoutSeconds));
}

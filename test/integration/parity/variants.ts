/**
 * The deployments the parity tests check: Terraform's defaults with the required variables set
 * as examples/terraform.tfvars.example sets them, and each documented optional feature turned
 * the other way (docs/deploy.md, step 4).
 */
import { readFileSync } from "node:fs";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { loadTerraform, type Terraform } from "../../unit/terraform/hcl.js";
import {
  defaultVariables,
  exampleVariables,
  type FunctionDeployment,
  functionDeployments,
  type Variables,
  workflowEnv,
} from "./terraform-env.js";

export interface Variant {
  name: string;
  overrides: Variables;
}

export const VARIANTS: readonly Variant[] = [
  { name: "defaults", overrides: {} },
  { name: "enable_otx = true", overrides: { enable_otx: true } },
  { name: "log dataset in another project", overrides: { log_dataset_project_id: "parity-logs-project" } },
  { name: "enable_scc_notification = false", overrides: { enable_scc_notification: false } },
  { name: "hourly sweep_schedule", overrides: { sweep_schedule: "0 * * * *" } },
  {
    // The analyst's loop in full: named analysts and a user group, SCC write-back with the
    // mute/state buttons, and OTX (the most secrets mounted at once).
    name: "analysts, SCC write-back and OTX",
    overrides: {
      enable_otx: true,
      slack_allowed_users: ["U0PARITY1", "W0PARITY2"],
      slack_allowed_user_groups: ["S0PARITY"],
      enable_scc_writeback: true,
      scc_analyst_mute_and_state: true,
    },
  },
  {
    name: "longer step executor and notifier timeouts",
    overrides: { functions: { stepExecutor: { timeout_seconds: 1200 }, notifier: { timeout_seconds: 300 } } },
  },
  {
    // The web console behind Identity-Aware Proxy (terraform/console.tf, docs/deploy.md).
    name: "enable_console = true",
    overrides: {
      enable_console: true,
      console_domain: "ferret.example.com",
      console_members: ["group:secops@example.com"],
    },
  },
];

/** Secret values as a deployer would add them with `gcloud secrets versions add`. */
const SECRET_VALUES = JSON.parse(
  readFileSync(fromRoot("test/integration/parity/fixtures/secrets.json"), "utf8"),
) as Record<string, string>;

export interface Deployment {
  tf: Terraform;
  vars: Variables;
  functions: Map<string, FunctionDeployment>;
  workflowEnv: Record<string, string>;
}

export async function deploymentFor(variant: Variant, projectId?: string): Promise<Deployment> {
  const tf = await loadTerraform();
  const defaults = defaultVariables(tf);
  const vars: Variables = { ...defaults, ...(await exampleVariables()), ...variant.overrides };
  // var.functions is an object of optional attributes: an override sets only what it names.
  const functionOverrides = variant.overrides.functions;
  if (functionOverrides && typeof functionOverrides === "object" && !Array.isArray(functionOverrides)) {
    const merged = structuredClone(defaults.functions) as Record<string, Record<string, unknown>>;
    for (const [name, attrs] of Object.entries(functionOverrides)) Object.assign(merged[name] ?? {}, attrs);
    vars.functions = merged as Variables[string];
  }
  if (projectId) vars.project_id = projectId;
  return { tf, vars, functions: functionDeployments(tf, vars), workflowEnv: workflowEnv(tf, vars) };
}

/** A function's environment as Cloud Run would give it: variables plus mounted secret values. */
export function environmentOf(deployment: FunctionDeployment): Record<string, string> {
  const env = { ...deployment.env };
  for (const [name, secret] of Object.entries(deployment.secrets)) {
    const value = SECRET_VALUES[secret];
    if (value === undefined) throw new Error(`no fixture value for secret ${secret}`);
    env[name] = value;
  }
  return env;
}

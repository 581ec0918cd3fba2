/**
 * A DeploymentInventory double: the project as `terraform apply` leaves it, computed from the
 * .tf files for a variant (APIs, functions with their environment and secrets, project roles,
 * secrets with a version, indexes READY, the SCC config on scc-findings). Tests then break one
 * thing at a time.
 */
import type {
  DeployedFunction,
  DeployedIndex,
  DeploymentInventory,
} from "../../../functions/src/doctor/inventory.js";
import { block, local, obj, resource, str, strings } from "../../unit/terraform/hcl.js";
import { Evaluator } from "./terraform-env.js";
import type { Deployment } from "./variants.js";

export interface DeployedState {
  apis: string[];
  functions: DeployedFunction[];
  roles: Map<string, string[]>;
  secretsWithVersion: Set<string>;
  indexes: DeployedIndex[];
  sccTopic: string | undefined;
}

export function stateFromTerraform(d: Deployment): DeployedState {
  const ev = new Evaluator(d.tf, d.vars);
  const projectId = String(d.vars.project_id);
  const table = obj(local(d.tf, "functions"), "local.functions");
  const accounts = obj(local(d.tf, "service_accounts"), "local.service_accounts");
  const email = (key: string): string =>
    `${str(obj(accounts[key], key).account_id, "account_id")}@${projectId}.iam.gserviceaccount.com`;

  // The instance cap and request concurrency each function is deployed with (service_config).
  const serviceConfig = block(
    resource(d.tf, "google_cloudfunctions2_function.function"),
    "service_config",
    "google_cloudfunctions2_function.function",
  );
  const scaling = (key: string): Pick<DeployedFunction, "maxInstances" | "concurrency"> => {
    if (!(key in table)) return {};
    const each = new Evaluator(d.tf, d.vars, { key, value: {} });
    const max = each.value(str(serviceConfig.max_instance_count, "max_instance_count"), `${key} max`);
    const concurrency = each.value(
      str(serviceConfig.max_instance_request_concurrency, "max_instance_request_concurrency"),
      `${key} concurrency`,
    );
    return {
      maxInstances: Number(max),
      ...(typeof concurrency === "number" ? { concurrency } : {}),
    };
  };

  const functions: DeployedFunction[] = [...d.functions].map(([key, fn]) => {
    const name = str(obj(table[key], key).name, "name");
    return {
      ...scaling(key),
      name,
      state: "ACTIVE",
      url: `https://${name}-abc123-uc.a.run.app`,
      serviceAccountEmail: email(key),
      env: fn.env,
      secretEnv: Object.keys(fn.secrets),
    };
  });

  const roles = new Map<string, string[]>();
  for (const g of ev.value(local(d.tf, "grants"), "local.grants") as {
    sa: string;
    scope: string;
    role: string;
  }[]) {
    if (g.scope !== "project") continue;
    const member = `serviceAccount:${email(g.sa)}`;
    roles.set(member, [...(roles.get(member) ?? []), g.role]);
  }

  const indexes: DeployedIndex[] = [];
  for (const index of Object.values(obj(local(d.tf, "firestore_composite_indexes"), "composite"))) {
    const i = ev.value(index, "index") as {
      collection: string;
      fields: { field_path: string; order: string | null; array_config: string | null }[];
    };
    indexes.push({
      collectionGroup: i.collection,
      fields: i.fields.map((f) => `${f.field_path}:${f.order ?? f.array_config}`),
      state: "READY",
    });
  }
  for (const index of Object.values(obj(local(d.tf, "firestore_vector_indexes"), "vector"))) {
    const i = ev.value(index, "index") as {
      collection: string;
      prefix_fields: string[];
      vector_field: string;
      dimension: number;
    };
    indexes.push({
      collectionGroup: i.collection,
      fields: [...i.prefix_fields.map((p) => `${p}:ASCENDING`), `${i.vector_field}:VECTOR(${i.dimension})`],
      state: "READY",
    });
  }

  return {
    apis: strings(local(d.tf, "apis"), "local.apis"),
    functions,
    roles,
    secretsWithVersion: new Set(
      Object.keys(obj(local(d.tf, "secrets"), "secrets")).map((k) => `ferret-${k}`),
    ),
    indexes,
    sccTopic:
      d.vars.enable_scc_notification === false ? undefined : `projects/${projectId}/topics/scc-findings`,
  };
}

export function inventoryOf(state: DeployedState): DeploymentInventory {
  return {
    enabledApis: async () => state.apis,
    functions: async () => state.functions,
    projectRoles: async (member) => state.roles.get(member) ?? [],
    secretHasVersion: async (id) => state.secretsWithVersion.has(id),
    firestoreIndexes: async () => state.indexes,
    sccNotificationTopic: async () => state.sccTopic,
  };
}

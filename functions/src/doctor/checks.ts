import { readFileSync } from "node:fs";
import { workflowFanout } from "../../../workflows/fanout.js";
import { unplacedModel } from "../model/catalog.js";
import { lifecycleWarning } from "../model/lifecycle.js";
import { fromRoot } from "../platform/paths.js";
import { TOPICS } from "../platform/topics.js";
import { capacityVerdicts, type InstanceCap } from "./capacity.js";
import {
  ENTRY_POINT_NAMES,
  FUNCTIONS,
  PROJECT_ROLES,
  REQUIRED_APIS,
  REQUIRED_INDEXES,
  SECRETS,
} from "./expectations.js";
import type { DeploymentInventory } from "./inventory.js";

export interface CheckResult {
  check: string;
  ok: boolean;
  /** What is wrong, one line per problem; what was found when ok. */
  lines: string[];
  /** How to fix each problem (commands a deployer can run). */
  fixes: string[];
}

export interface DoctorTarget {
  projectId: string;
  region: string;
  organizationId?: string;
  /** The SCC notification config is managed elsewhere (enable_scc_notification = false) when unset. */
  sccConfigId?: string;
}

function result(check: string, problems: string[], fixes: string[], okLine: string): CheckResult {
  return problems.length === 0
    ? { check, ok: true, lines: [okLine], fixes: [] }
    : { check, ok: false, lines: problems, fixes: [...new Set(fixes)] };
}

/** A check that could not ask its API says so, rather than passing or crashing the rest. */
async function guarded(check: string, run: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await run();
  } catch (error) {
    return {
      check,
      ok: false,
      lines: [`could not check: ${error instanceof Error ? error.message : String(error)}`],
      fixes: [
        "run with credentials that may read the project (roles/viewer), e.g. gcloud auth application-default login",
      ],
    };
  }
}

export async function checkApis(inv: DeploymentInventory, t: DoctorTarget): Promise<CheckResult> {
  return guarded("APIs", async () => {
    const enabled = new Set(await inv.enabledApis());
    const missing = REQUIRED_APIS.filter((api) => !enabled.has(api));
    return result(
      "APIs",
      missing.map((api) => `${api} is not enabled`),
      missing.length ? [`gcloud services enable ${missing.join(" ")} --project=${t.projectId}`] : [],
      `${REQUIRED_APIS.length} required APIs enabled`,
    );
  });
}

const serviceAccountEmail = (accountId: string, projectId: string): string =>
  `${accountId}@${projectId}.iam.gserviceaccount.com`;

export async function checkFunctions(inv: DeploymentInventory, t: DoctorTarget): Promise<CheckResult> {
  return guarded("functions", async () => {
    const deployed = new Map((await inv.functions()).map((f) => [f.name, f]));
    const problems: string[] = [];
    for (const name of ENTRY_POINT_NAMES) {
      const { service, accountId } = FUNCTIONS[name];
      const fn = deployed.get(service);
      if (!fn) problems.push(`${service} is not deployed`);
      else if (fn.state !== "ACTIVE") problems.push(`${service} is ${fn.state}, not ACTIVE`);
      else if (!fn.url) problems.push(`${service} has no URL`);
      else if (fn.serviceAccountEmail !== serviceAccountEmail(accountId, t.projectId))
        problems.push(
          `${service} runs as ${fn.serviceAccountEmail ?? "the default account"}, not ${accountId}`,
        );
    }
    return result(
      "functions",
      problems,
      problems.length
        ? [
            "terraform apply (from terraform/), then read the build log: gcloud functions describe <name> --region=" +
              t.region,
          ]
        : [],
      `${ENTRY_POINT_NAMES.length} functions ACTIVE with their URLs and own service accounts`,
    );
  });
}

export async function checkRoles(inv: DeploymentInventory, t: DoctorTarget): Promise<CheckResult> {
  return guarded("service account roles", async () => {
    const problems: string[] = [];
    const fixes: string[] = [];
    for (const name of ENTRY_POINT_NAMES) {
      const email = serviceAccountEmail(FUNCTIONS[name].accountId, t.projectId);
      const held = new Set(await inv.projectRoles(`serviceAccount:${email}`));
      for (const role of PROJECT_ROLES[name].filter((r) => !held.has(r))) {
        problems.push(`${email} lacks ${role}`);
        fixes.push(
          `gcloud projects add-iam-policy-binding ${t.projectId} --member=serviceAccount:${email} --role=${role}  (or terraform apply)`,
        );
      }
    }
    return result(
      "service account roles",
      problems,
      fixes,
      "every function's account holds its project roles",
    );
  });
}

export async function checkSecrets(inv: DeploymentInventory, t: DoctorTarget): Promise<CheckResult> {
  return guarded("secrets", async () => {
    // A secret is needed where a function mounts it.
    const mounted = new Set((await inv.functions()).flatMap((f) => f.secretEnv));
    const problems: string[] = [];
    const fixes: string[] = [];
    for (const { secretId, env } of SECRETS) {
      if (!mounted.has(env)) continue;
      if (!(await inv.secretHasVersion(secretId))) {
        problems.push(`${secretId} has no enabled version (mounted as ${env})`);
        fixes.push(
          `printf '%s' "$VALUE" | gcloud secrets versions add ${secretId} --data-file=- --project=${t.projectId}`,
        );
      }
    }
    return result("secrets", problems, fixes, "every mounted secret has a version");
  });
}

function expectedIndexes(): { collectionGroup: string; fields: string[] }[] {
  return [
    ...REQUIRED_INDEXES.composite.map((i) => ({
      collectionGroup: i.collectionGroup,
      fields: i.fields.map((f) => `${f.fieldPath}:${"order" in f ? f.order : f.arrayConfig}`),
    })),
    ...REQUIRED_INDEXES.vector.map((i) => ({
      collectionGroup: i.collectionGroup,
      fields: [...i.prefixFields.map((p) => `${p}:ASCENDING`), `${i.vectorField}:VECTOR(${i.dimension})`],
    })),
  ];
}

export async function checkIndexes(inv: DeploymentInventory, t: DoctorTarget): Promise<CheckResult> {
  return guarded("Firestore indexes", async () => {
    const deployed = await inv.firestoreIndexes();
    const problems: string[] = [];
    for (const want of expectedIndexes()) {
      const key = `${want.collectionGroup}(${want.fields.join(", ")})`;
      const found = deployed.find(
        (d) => d.collectionGroup === want.collectionGroup && d.fields.join("|") === want.fields.join("|"),
      );
      if (!found) problems.push(`missing index ${key}`);
      else if (found.state !== "READY") problems.push(`index ${key} is ${found.state}, not READY`);
    }
    return result(
      "Firestore indexes",
      problems,
      problems.length
        ? [
            `terraform apply creates them (docs/deploy.md step 8 has the gcloud commands); building takes minutes: gcloud firestore indexes composite list --project=${t.projectId}`,
          ]
        : [],
      `${expectedIndexes().length} indexes READY`,
    );
  });
}

export async function checkSccNotification(inv: DeploymentInventory, t: DoctorTarget): Promise<CheckResult> {
  const check = "SCC notification config";
  if (!t.organizationId || !t.sccConfigId)
    return { check, ok: true, lines: ["skipped (no --organization given)"], fixes: [] };
  return guarded(check, async () => {
    const topic = await inv.sccNotificationTopic();
    const want = `projects/${t.projectId}/topics/${TOPICS.findings}`;
    const problems =
      topic === undefined
        ? [`organizations/${t.organizationId} has no notification config ${t.sccConfigId}`]
        : topic !== want
          ? [`${t.sccConfigId} publishes to ${topic}, not ${want}`]
          : [];
    return result(
      check,
      problems,
      problems.length ? ["terraform apply, or have an organization admin run docs/deploy.md step 7b"] : [],
      `${t.sccConfigId} publishes to ${want}`,
    );
  });
}

/** The model ids the deployed functions are configured with (Terraform sets these variables). */
const MODEL_VARIABLES = ["FERRET_GEMINI_MODEL", "FERRET_GEMINI_LITE_MODEL", "FERRET_GEMINI_EMBEDDING_MODEL"];

/**
 * Gemini model ids ferret cannot place (model/catalog.ts), retired, routed or soon-retired ones:
 * an unknown id is sent without its generation's rules, a retired id answers 404 and every
 * investigation then runs on the offline model, which the functions' start-up log says but
 * nobody reads.
 */
export async function checkModels(
  inv: DeploymentInventory,
  t: DoctorTarget,
  today: Date = new Date(),
): Promise<CheckResult> {
  return guarded("Gemini models", async () => {
    const models = new Map<string, string[]>();
    const embeddingIds = new Set<string>();
    for (const fn of await inv.functions())
      for (const variable of MODEL_VARIABLES) {
        const model = fn.env[variable];
        if (model) models.set(model, [...(models.get(model) ?? []), fn.name]);
        if (model && variable === "FERRET_GEMINI_EMBEDDING_MODEL") embeddingIds.add(model);
      }
    const problems = [...models].flatMap(([model, users]) => {
      const unplaced = unplacedModel(model, embeddingIds.has(model));
      const warning = unplaced ?? lifecycleWarning(model, today);
      return warning ? [`${warning} (used by ${users.join(", ")})`] : [];
    });
    return result(
      "Gemini models",
      problems,
      problems.length
        ? [
            `set gemini_model / gemini_lite_model in terraform.tfvars and terraform apply (project ${t.projectId})`,
          ]
        : [],
      models.size
        ? `${[...models.keys()].join(", ")}: all known to ferret, none retired, routed or retiring within 60 days`
        : "no Gemini model configured",
    );
  });
}

/** The variable Terraform sets from governor_max_concurrent (terraform/main.tf, the governor group). */
const GOVERNOR_VARIABLE = "FERRET_GOVERNOR_MAX_CONCURRENT";

/**
 * Whether every function the workflow calls can serve the governor's investigations at the
 * workflow's fan-out (doctor/capacity.ts), from the deployed instance caps and concurrency and
 * the governor limit the deployed functions run with. The fan-out is read from
 * workflows/investigate.yaml in this checkout, the YAML terraform/ deploys; the line says so.
 */
export async function checkCapacity(
  inv: DeploymentInventory,
  t: DoctorTarget,
  fanout: Readonly<Record<string, number>> = workflowFanout(
    readFileSync(fromRoot("workflows/investigate.yaml"), "utf8"),
  ),
): Promise<CheckResult> {
  return guarded("capacity", async () => {
    const deployed = await inv.functions();
    const byService = new Map(deployed.map((f) => [f.name, f]));
    const limits = new Set(
      deployed.flatMap((f) => (f.env[GOVERNOR_VARIABLE] ? [f.env[GOVERNOR_VARIABLE]] : [])),
    );
    const problems: string[] = [];
    if (limits.size !== 1) {
      problems.push(
        limits.size === 0
          ? `no deployed function carries ${GOVERNOR_VARIABLE}, so the governor's concurrency cannot be read`
          : `the functions disagree on ${GOVERNOR_VARIABLE}: ${[...limits].join(", ")}`,
      );
      return result("capacity", problems, ["terraform apply (from terraform/)"], "");
    }
    const governor = Number([...limits][0]);
    const caps: Record<string, InstanceCap | undefined> = {};
    for (const name of Object.keys(fanout)) {
      const service = (FUNCTIONS as Readonly<Record<string, { service: string } | undefined>>)[name]?.service;
      const fn = service ? byService.get(service) : undefined;
      caps[name] =
        fn?.maxInstances !== undefined
          ? { maxInstances: fn.maxInstances, concurrency: fn.concurrency ?? 1 }
          : undefined;
    }
    const verdicts = capacityVerdicts(caps, governor, fanout);
    const short = verdicts.filter((v) => !v.ok);
    return result(
      "capacity",
      short.map((v) => v.line),
      short.length
        ? [
            `raise functions.<name>.max_instances in terraform.tfvars (or lower governor_max_concurrent) and terraform apply (project ${t.projectId})`,
          ]
        : [],
      `every workflow-called function serves the governor's ${governor} investigations at the fan-out of workflows/investigate.yaml in this checkout (${verdicts.map((v) => `${v.name} ${v.serves} ≥ ${v.needs}`).join(", ")})`,
    );
  });
}

/** Every configuration check, in the order a deployer would fix them. */
export async function runChecks(inv: DeploymentInventory, target: DoctorTarget): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const check of [
    checkApis,
    checkFunctions,
    checkRoles,
    checkSecrets,
    checkIndexes,
    checkSccNotification,
    checkModels,
    checkCapacity,
  ])
    out.push(await check(inv, target));
  return out;
}

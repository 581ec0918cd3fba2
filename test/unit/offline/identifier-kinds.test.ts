import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { askPlanner } from "../../../functions/src/agent/planner.js";
import { CATEGORY_CATALOG, type CatalogEntry } from "../../../functions/src/domain/category-catalog.js";
import {
  type Finding,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding/finding.js";
import { readFindingsText } from "../../../functions/src/domain/finding/finding-file.js";
import type { JsonValue } from "../../../functions/src/domain/json.js";
import {
  type IdentifierKind,
  kindsOfValue,
  PARAM_KINDS,
  resolveLogIdentifiers,
} from "../../../functions/src/domain/log-identifiers.js";
import type { ToolDeclaration } from "../../../functions/src/model/port.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { stepExecutorAnswer } from "../../../functions/src/offline-model/step-executor/index.js";
import { decodeIntent } from "../../../functions/src/offline-model/step-text.js";
import { LOG_TABLES } from "../../../functions/src/sql/log-schema.js";
import { loadRunbooks } from "../../../functions/src/sql/runbooks.js";
import { loadCorpus } from "../../../scripts/measure-findings.js";
import { makeFinding } from "./support/findings.js";
import { RealTools } from "./support/tools.js";

/**
 * Issue 30, item 1: every query ferret's offline brain makes names identifiers of the right
 * kind. Each catalog category is planned for each resource shape real findings come in (a GKE
 * cluster with its nodes, a backend service, a project number with the VM in
 * properties.instanceDetails, a VM by numeric id and display name, a Cloud SQL instance, a
 * dataset, a bucket, a service account), and every value in an identifier slot — a runbook
 * parameter or a plan-tail parameter — must have been resolved as that kind from the finding.
 * A cluster, backend service or project number in a VM slot fails here.
 */
const P = "acme-prod";

const SHAPES: Record<
  string,
  Pick<Finding, "resource"> & {
    details?: Record<string, JsonValue>;
    sourceProperties?: Record<string, JsonValue>;
  }
> = {
  "gke cluster": {
    resource: {
      name: `//container.googleapis.com/projects/${P}/locations/us-central1/clusters/prod-gke`,
      type: "google.container.Cluster",
      projectDisplayName: P,
      displayName: "prod-gke",
    },
    details: {
      kubernetes: {
        pods: [{ ns: "payments", name: "checkout-7d9f", containers: [{ name: "checkout" }] }],
        nodes: [{ name: "gke-prod-gke-default-pool-1a2b3c4d-x7kq" }],
      },
    },
  },
  "backend service": {
    resource: {
      name: `//compute.googleapis.com/projects/${P}/global/backendServices/shop-web-backend`,
      type: "google.compute.BackendService",
      projectDisplayName: P,
      displayName: "shop-web-backend",
    },
    details: { loadBalancers: [{ name: "shop-web-lb" }] },
  },
  "project number with instanceDetails": {
    resource: {
      name: "//cloudresourcemanager.googleapis.com/projects/123456789012",
      type: "google.cloud.resourcemanager.Project",
      project: "//cloudresourcemanager.googleapis.com/projects/123456789012",
      projectDisplayName: P,
    },
    sourceProperties: {
      properties: { instanceDetails: `/projects/${P}/zones/us-central1-a/instances/render-3` },
    },
  },
  "project number alone": {
    resource: {
      name: "//cloudresourcemanager.googleapis.com/projects/123456789012",
      project: "//cloudresourcemanager.googleapis.com/projects/123456789012",
      projectDisplayName: P,
    },
  },
  "vm by numeric id": {
    resource: {
      name: `//compute.googleapis.com/projects/${P}/zones/europe-west1-b/instances/7700112233`,
      type: "google.compute.Instance",
      projectDisplayName: P,
      displayName: "batch-7",
    },
  },
  "cloud sql instance": {
    resource: {
      name: `//cloudsql.googleapis.com/projects/${P}/instances/orders-db`,
      type: "google.cloud.sql.Instance",
      projectDisplayName: P,
      displayName: "orders-db",
    },
  },
  "bigquery dataset": {
    resource: {
      name: `//bigquery.googleapis.com/projects/${P}/datasets/payments`,
      type: "google.cloud.bigquery.Dataset",
      projectDisplayName: P,
      displayName: "payments",
    },
    details: {
      exfiltration: {
        sources: [{ name: `//bigquery.googleapis.com/projects/${P}/datasets/payments/tables/transactions` }],
      },
    },
  },
  bucket: {
    resource: {
      name: "//storage.googleapis.com/acme-exports-2025",
      type: "google.cloud.storage.Bucket",
      projectDisplayName: P,
      displayName: "acme-exports-2025",
    },
  },
  "service account": {
    resource: {
      name: `//iam.googleapis.com/projects/${P}/serviceAccounts/104593812274019384756`,
      type: "google.iam.ServiceAccount",
      projectDisplayName: P,
      displayName: "backup-exporter",
    },
  },
};

function findingFor(entry: CatalogEntry, shape: (typeof SHAPES)[string]): Finding {
  return makeFinding({
    category: entry.category,
    findingClass: entry.findingClass,
    resource: shape.resource,
    ...(shape.details ? { details: shape.details } : {}),
    ...(shape.sourceProperties ? { sourceProperties: shape.sourceProperties } : {}),
    access: {
      principalEmail: "svc-runner@acme-prod.iam.gserviceaccount.com",
      callerIp: "203.0.113.77",
      methodName: "google.iam.admin.v1.CreateServiceAccountKey",
    },
    indicators: {
      ipAddresses: ["198.51.100.23"],
      domains: ["c2.badcdn.xyz"],
      uris: [],
      hashes: [],
      signatures: [],
    },
  });
}

/** Plan-tail parameters that name identifiers, and the kinds each may hold. */
const TAIL_KINDS: Record<string, readonly IdentifierKind[]> = {
  instance: ["instance_name"],
  bucket: ["bucket"],
  backend: ["backend_service"],
  principal: ["principal", "service_account"],
  project: ["project_id"],
};

const model = createOfflineModel();
const tables = LOG_TABLES.map((t) => ({ name: t.name, description: t.description }));
const runbooks = loadRunbooks();
let tools: RealTools;
let declarations: ToolDeclaration[];

before(async () => {
  tools = await RealTools.create({});
  declarations = tools.declarations();
});
after(async () => tools.close());

/** Every identifier-slot value of the plan's queries whose kind the finding does not give it. */
async function wrongKinds(finding: Finding): Promise<string[]> {
  const ids = resolveLogIdentifiers(finding);
  const check = (where: string, slot: string, value: string, allowed: readonly IdentifierKind[]) => {
    const kinds = kindsOfValue(ids, value);
    return kinds.some((k) => allowed.includes(k))
      ? []
      : [
          `${where}: ${slot}=${value} is ${kinds.length ? kinds.join("/") : "not an identifier of the finding"}, not ${allowed.join("/")}`,
        ];
  };
  const { plan } = await askPlanner({
    investigationId: "inv-kinds",
    finding,
    model,
    tools: declarations.map((d) => ({ name: d.name, description: d.description })),
    declarations,
    tables,
    maxSteps: 10,
  });
  const wrong: string[] = [];
  for (const step of plan.steps) {
    const intent = decodeIntent(step.description);
    for (const [param, allowed] of Object.entries(TAIL_KINDS))
      for (const value of intent?.params[param as keyof typeof intent.params] ?? [])
        wrong.push(...check(`${step.id} tail`, param, value, allowed));
    const calls =
      step.calls?.map((c) => c.args) ??
      (() => {
        const answer = stepExecutorAnswer({
          brief: {
            role: "executor",
            finding,
            objective: plan.objective,
            step,
            priorResults: [],
            iteration: 1,
            maxIterations: 6,
            finalReportOnly: false,
          },
          messages: [],
          tools: declarations.filter((d) => step.tools.includes(d.name)),
          reportOnly: false,
        });
        return answer.kind === "calls" ? answer.calls.map((c) => c.args) : [];
      })();
    for (const args of calls) {
      const name = typeof args.runbook === "string" ? args.runbook : undefined;
      const params = (args.params ?? {}) as Record<string, unknown>;
      if (!name) continue;
      assert.ok(runbooks.get(name), `runbook ${name} exists`);
      for (const [param, allowed] of Object.entries(PARAM_KINDS)) {
        const value = params[param];
        if (typeof value === "string") wrong.push(...check(`${step.id} ${name}`, param, value, allowed));
      }
    }
  }
  return wrong;
}

describe("identifiers of the right kind in every query, over every catalog category and resource shape", () => {
  it("resolves the identifiers real finding shapes carry", () => {
    const gke = resolveLogIdentifiers(findingFor(CATEGORY_CATALOG[0]!, SHAPES["gke cluster"]!));
    assert.deepEqual(kindsOfValue(gke, "prod-gke"), ["cluster"]);
    assert.deepEqual(kindsOfValue(gke, "gke-prod-gke-default-pool-1a2b3c4d-x7kq"), ["instance_name"]);
    assert.deepEqual(kindsOfValue(gke, "payments"), ["namespace"]);
    const project = resolveLogIdentifiers(
      findingFor(CATEGORY_CATALOG[0]!, SHAPES["project number with instanceDetails"]!),
    );
    assert.deepEqual(kindsOfValue(project, "123456789012"), ["project_number"]);
    assert.deepEqual(kindsOfValue(project, "render-3"), ["instance_name"]);
    const backend = resolveLogIdentifiers(findingFor(CATEGORY_CATALOG[0]!, SHAPES["backend service"]!));
    assert.deepEqual(kindsOfValue(backend, "shop-web-backend"), ["backend_service"]);
    const sql = resolveLogIdentifiers(findingFor(CATEGORY_CATALOG[0]!, SHAPES["cloud sql instance"]!));
    assert.deepEqual(kindsOfValue(sql, "orders-db"), ["sql_instance"]);
    const vm = resolveLogIdentifiers(findingFor(CATEGORY_CATALOG[0]!, SHAPES["vm by numeric id"]!));
    assert.deepEqual(kindsOfValue(vm, "7700112233"), ["instance_id"]);
    assert.deepEqual(kindsOfValue(vm, "batch-7"), ["instance_name"]);
    const dataset = resolveLogIdentifiers(findingFor(CATEGORY_CATALOG[0]!, SHAPES["bigquery dataset"]!));
    assert.deepEqual(kindsOfValue(dataset, "transactions"), ["table"]);
    const sa = resolveLogIdentifiers(findingFor(CATEGORY_CATALOG[0]!, SHAPES["service account"]!));
    assert.deepEqual(kindsOfValue(sa, "104593812274019384756"), ["service_account_id"]);
  });

  it("never puts a value of another kind in an identifier slot", async () => {
    const failures: string[] = [];
    for (const entry of CATEGORY_CATALOG)
      for (const [shape, parts] of Object.entries(SHAPES))
        for (const wrong of await wrongKinds(findingFor(entry, parts)))
          failures.push(`${entry.category} [${shape}] ${wrong}`);
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} wrong identifier(s)`);
  });

  it("never puts a value of another kind in an identifier slot for the real public findings", async () => {
    // test/fixtures/real/scc (sources in its PROVENANCE.md): findings as Google and others
    // published them, read the way ingest reads them.
    const failures: string[] = [];
    let findings = 0;
    for (const sample of loadCorpus())
      for (const item of readFindingsText(sample.text, sample.file).items) {
        const finding = normalizeNotification(parseNotification(item.payload));
        findings += 1;
        for (const wrong of await wrongKinds(finding)) failures.push(`${sample.name}: ${wrong}`);
      }
    assert.equal(findings, 42, "every finding of the corpus was read");
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} wrong identifier(s)`);
  });
});

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { askPlanner } from "../../../functions/src/agent/planner.js";
import { DetectorSchema } from "../../../functions/src/domain/catalog/schema.js";
import { CATEGORY_CATALOG, type CatalogEntry } from "../../../functions/src/domain/category-catalog.js";
import type { Finding } from "../../../functions/src/domain/finding/finding.js";
import type { ToolDeclaration } from "../../../functions/src/model/port.js";
import { familyOf } from "../../../functions/src/offline-model/families.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { stepExecutorAnswer } from "../../../functions/src/offline-model/step-executor/index.js";
import { LOG_TABLES } from "../../../functions/src/sql/log-schema.js";
import { makeFinding, vmResource } from "./support/findings.js";
import { RealTools } from "./support/tools.js";

/**
 * Issue 13: every catalogued category gets an offline plan, and every step of it makes a tool
 * call — a step that runs nothing ("No tool this step may use fits its question") fails here.
 * Each category is walked twice: as a bare finding (category and resource only) and as one
 * that names a principal, a caller IP and indicators.
 */
const RESOURCE: Partial<Record<CatalogEntry["detector"], Finding["resource"]>> = {
  event_threat_detection: {
    name: "//cloudresourcemanager.googleapis.com/projects/acme-prod",
    type: "google.cloud.resourcemanager.Project",
    projectDisplayName: "acme-prod",
  },
  container_threat_detection: {
    name: "//container.googleapis.com/projects/acme-prod/locations/europe-west1/clusters/prod-gke",
    type: "google.container.Cluster",
    projectDisplayName: "acme-prod",
  },
  vm_threat_detection: vmResource("acme-prod", "batch-7"),
  security_health_analytics: {
    name: "//compute.googleapis.com/projects/acme-prod/global/firewalls/allow-ingress-all",
    type: "google.compute.Firewall",
    projectDisplayName: "acme-prod",
  },
  web_security_scanner: {
    name: "//appengine.googleapis.com/apps/acme-prod/services/default",
    type: "google.appengine.Service",
    projectDisplayName: "acme-prod",
  },
};

/** Detectors without a resource of their own here watch a project, a workload or a configuration. */
function resourceFor(detector: CatalogEntry["detector"]): Finding["resource"] {
  const like: Partial<Record<CatalogEntry["detector"], CatalogEntry["detector"]>> = {
    cloud_run_threat_detection: "container_threat_detection",
    agent_engine_threat_detection: "container_threat_detection",
    event_threat_detection_custom_module: "event_threat_detection",
    sensitive_actions: "event_threat_detection",
  };
  return RESOURCE[detector] ?? RESOURCE[like[detector] ?? "security_health_analytics"] ?? { name: "" };
}

function bare(entry: CatalogEntry): Finding {
  return makeFinding({
    category: entry.category,
    findingClass: entry.findingClass,
    resource: resourceFor(entry.detector),
  });
}

function rich(entry: CatalogEntry): Finding {
  return makeFinding({
    category: entry.category,
    findingClass: entry.findingClass,
    resource: resourceFor(entry.detector),
    access: {
      principalEmail: "svc-runner@acme-prod.iam.gserviceaccount.com",
      callerIp: "203.0.113.77",
      methodName: "google.iam.admin.v1.CreateServiceAccountKey",
      serviceName: "iam.googleapis.com",
    },
    indicators: {
      ipAddresses: ["198.51.100.23"],
      domains: ["c2.badcdn.xyz"],
      uris: [],
      hashes: ["44d88612fea8a8f36de82e1278abb02f"],
      signatures: [],
    },
  });
}

const model = createOfflineModel();
const tables = LOG_TABLES.map((t) => ({ name: t.name, description: t.description }));
let tools: RealTools;
let declarations: ToolDeclaration[];

before(async () => {
  tools = await RealTools.create({});
  declarations = tools.declarations();
});
after(async () => tools.close());

/** The steps of the offline plan that would run nothing, with why. */
async function idleSteps(finding: Finding): Promise<string[]> {
  const { plan } = await askPlanner({
    investigationId: "inv-walk",
    finding,
    model,
    tools: declarations.map((d) => ({ name: d.name, description: d.description })),
    tables,
    maxSteps: 10,
  });
  assert.ok(plan.steps.length > 0, "a plan with steps");
  const idle: string[] = [];
  for (const step of plan.steps) {
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
    if (answer.kind !== "calls") idle.push(`${step.id}: ${answer.report.summary}`);
    else if (answer.calls.some((c) => !step.tools.includes(c.name)))
      idle.push(`${step.id}: calls a tool it was not given`);
  }
  return idle;
}

describe("every catalog category through the offline planner and executor", () => {
  it("has a catalog with entries for every detector Google's saved pages list", () => {
    const detectors = new Set(CATEGORY_CATALOG.map((e) => e.detector));
    for (const detector of [
      "event_threat_detection",
      "container_threat_detection",
      "vm_threat_detection",
      "cloud_run_threat_detection",
      "agent_engine_threat_detection",
      "security_health_analytics",
      "web_security_scanner",
      "rapid_vulnerability_detection",
      "vm_manager",
      "security_posture",
      "scc_errors",
    ] as const)
      assert.ok(detectors.has(DetectorSchema.parse(detector)), detector);
    assert.ok(CATEGORY_CATALOG.length >= 100, `${CATEGORY_CATALOG.length} entries`);
  });

  it("routes every entry to its catalog playbook, never to generic", () => {
    for (const entry of CATEGORY_CATALOG) {
      assert.equal(familyOf(bare(entry)), entry.playbook, entry.category);
    }
  });

  it("plans only steps that make a tool call, bare and rich findings alike", async () => {
    const failures: string[] = [];
    for (const entry of CATEGORY_CATALOG) {
      for (const [variant, finding] of [
        ["bare", bare(entry)],
        ["rich", rich(entry)],
      ] as const) {
        for (const idle of await idleSteps(finding)) failures.push(`${entry.category} (${variant}) ${idle}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});

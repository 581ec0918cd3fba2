/**
 * `ferret doctor`'s configuration checks against the project as Terraform leaves it (computed
 * from terraform/*.tf), then with one thing broken at a time: each breakage is reported with
 * a fix. Its synthetic-finding check runs against the emulated stack in stack.test.ts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runDoctor } from "../../../functions/src/cli/doctor.js";
import { type CheckResult, runChecks } from "../../../functions/src/doctor/checks.js";
import { type DeployedState, inventoryOf, stateFromTerraform } from "./deployed-inventory.js";
import { deploymentFor, VARIANTS } from "./variants.js";

const target = (projectId: string) => ({
  projectId,
  region: "us-central1",
  organizationId: "123456789012",
  sccConfigId: "ferret-findings",
});

async function checksFor(
  variantName: string,
  breakIt: (s: DeployedState) => void = () => {},
): Promise<CheckResult[]> {
  const variant = VARIANTS.find((v) => v.name === variantName);
  assert.ok(variant);
  const deployment = await deploymentFor(variant);
  const state = stateFromTerraform(deployment);
  breakIt(state);
  return runChecks(inventoryOf(state), target(String(deployment.vars.project_id)));
}

const failed = (results: CheckResult[]) => results.filter((r) => !r.ok);

describe("ferret doctor on the project Terraform deploys", () => {
  for (const name of ["defaults", "enable_otx = true"]) {
    test(`every check passes (${name})`, async () => {
      assert.deepEqual(failed(await checksFor(name)), []);
    });
  }

  test("a disabled API is named, with the command that enables it", async () => {
    const [problem, ...more] = failed(
      await checksFor("defaults", (s) => {
        s.apis = s.apis.filter((a) => a !== "workflowexecutions.googleapis.com");
      }),
    );
    assert.equal(more.length, 0);
    assert.equal(problem?.check, "APIs");
    assert.deepEqual(problem?.lines, ["workflowexecutions.googleapis.com is not enabled"]);
    assert.match(problem?.fixes[0] ?? "", /gcloud services enable workflowexecutions\.googleapis\.com/);
  });

  test("a function that did not build, and one running as the wrong account", async () => {
    const [problem] = failed(
      await checksFor("defaults", (s) => {
        const [first, second] = s.functions;
        if (first) first.state = "FAILED";
        if (second) second.serviceAccountEmail = "123-compute@developer.gserviceaccount.com";
      }),
    );
    assert.equal(problem?.check, "functions");
    assert.equal(problem?.lines.length, 2);
    assert.match(problem?.lines.join("\n") ?? "", /is FAILED, not ACTIVE/);
    assert.match(problem?.lines.join("\n") ?? "", /runs as 123-compute@developer\.gserviceaccount\.com/);
  });

  test("a missing project role, with the grant that fixes it", async () => {
    const [problem] = failed(
      await checksFor("defaults", (s) => {
        for (const [member, roles] of s.roles)
          if (member.includes("ferret-sweep@"))
            s.roles.set(
              member,
              roles.filter((r) => r !== "roles/workflows.invoker"),
            );
      }),
    );
    assert.equal(problem?.check, "service account roles");
    assert.match(problem?.lines[0] ?? "", /ferret-sweep@.* lacks roles\/workflows\.invoker/);
    assert.match(problem?.fixes[0] ?? "", /add-iam-policy-binding .* --role=roles\/workflows\.invoker/);
  });

  test("a mounted secret without a version; an unmounted one does not matter", async () => {
    const noOtx = await checksFor("defaults", (s) => s.secretsWithVersion.delete("ferret-otx-api-key"));
    assert.deepEqual(failed(noOtx), [], "OTX is off by default: its secret is not mounted");
    const [problem] = failed(
      await checksFor("enable_otx = true", (s) => s.secretsWithVersion.delete("ferret-otx-api-key")),
    );
    assert.equal(problem?.check, "secrets");
    assert.match(problem?.lines[0] ?? "", /ferret-otx-api-key has no enabled version/);
    assert.match(problem?.fixes[0] ?? "", /gcloud secrets versions add ferret-otx-api-key/);
  });

  test("an index still building, and the vector index without its space prefix", async () => {
    const [problem] = failed(
      await checksFor("defaults", (s) => {
        const [first] = s.indexes;
        if (first) first.state = "CREATING";
        for (const i of s.indexes)
          if (i.collectionGroup === "findingEmbeddings")
            i.fields = i.fields.filter((f) => !f.startsWith("space:"));
      }),
    );
    assert.equal(problem?.check, "Firestore indexes");
    assert.match(problem?.lines.join("\n") ?? "", /is CREATING, not READY/);
    assert.match(
      problem?.lines.join("\n") ?? "",
      /missing index findingEmbeddings\(space:ASCENDING, embedding:VECTOR\(768\)\)/,
    );
  });

  test("a retired Gemini model is named with the functions that use it and its replacement", async () => {
    const [problem, ...more] = failed(
      await checksFor("defaults", (s) => {
        for (const fn of s.functions)
          if (fn.env.FERRET_GEMINI_MODEL) fn.env.FERRET_GEMINI_MODEL = "gemini-2.5-flash";
      }),
    );
    assert.equal(more.length, 0);
    assert.equal(problem?.check, "Gemini models");
    assert.equal(problem?.lines.length, 1);
    assert.match(
      problem?.lines[0] ?? "",
      /^gemini-2\.5-flash was shut down on 2026-10-16 and answers 404; configure gemini-3\.8-flash instead .*\(used by ferret-/,
    );
  });

  test("a step executor whose instance cap was lowered by hand cannot carry the governor's investigations", async () => {
    const [problem, ...more] = failed(
      await checksFor("defaults", (s) => {
        for (const fn of s.functions) if (fn.name === "ferret-step-executor") fn.maxInstances = 20;
      }),
    );
    assert.equal(more.length, 0);
    assert.equal(problem?.check, "capacity");
    assert.deepEqual(problem?.lines, [
      "stepExecutor: 20 instance(s) × 1 request(s) = 20 at once < governor 10 investigations × fan-out 4 = 40; requests past the cap wait up to 10 s, then Cloud Run answers 429",
    ]);
  });

  test("no SCC notification config", async () => {
    const [problem] = failed(await checksFor("enable_scc_notification = false"));
    assert.equal(problem?.check, "SCC notification config");
    assert.match(problem?.fixes[0] ?? "", /step 7b/);
  });

  test("an API that cannot be asked is reported as a failed check, not a crash", async () => {
    const variant = VARIANTS[0];
    assert.ok(variant);
    const deployment = await deploymentFor(variant);
    const inventory = {
      ...inventoryOf(stateFromTerraform(deployment)),
      enabledApis: async () => {
        throw new Error("PERMISSION_DENIED: serviceusage.services.list");
      },
    };
    const lines: string[] = [];
    const ok = await runDoctor(
      {
        inventory,
        smoke: {
          bus: { publish: async () => assert.fail("no synthetic finding before the checks pass") },
          store: { get: async () => undefined },
          now: () => new Date(),
          sleep: async () => {},
        },
        close: async () => {},
      },
      { ...target(String(deployment.vars.project_id)), databaseId: "ferret", smoke: true, timeoutSeconds: 1 },
      { line: (text) => lines.push(text) },
    );
    assert.equal(ok, false);
    assert.match(lines.join("\n"), /FAIL {2}APIs: could not check: PERMISSION_DENIED/);
    assert.match(lines.join("\n"), /synthetic finding not sent: fix the failures above first/);
  });

  test("without an organization the synthetic finding is skipped, not failed", async () => {
    const variant = VARIANTS[0];
    assert.ok(variant);
    const deployment = await deploymentFor(variant);
    const lines: string[] = [];
    const ok = await runDoctor(
      {
        inventory: inventoryOf(stateFromTerraform(deployment)),
        smoke: {
          bus: { publish: async () => assert.fail("no synthetic finding without an organization") },
          store: { get: async () => undefined },
          now: () => new Date(),
          sleep: async () => {},
        },
        close: async () => {},
      },
      {
        projectId: String(deployment.vars.project_id),
        region: "us-central1",
        databaseId: "ferret",
        smoke: true,
        timeoutSeconds: 1,
      },
      { line: (text) => lines.push(text) },
    );
    assert.equal(ok, true, lines.join("\n"));
    assert.match(lines.join("\n"), /SCC notification config: skipped/);
    assert.match(lines.join("\n"), /synthetic finding not sent: give --organization/);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { capacityVerdicts } from "../../../functions/src/doctor/capacity.js";
import { checkCapacity } from "../../../functions/src/doctor/checks.js";
import { FUNCTIONS } from "../../../functions/src/doctor/expectations.js";
import type { DeployedFunction, DeploymentInventory } from "../../../functions/src/doctor/inventory.js";
import { terraformSettings } from "../../../functions/src/local/terraform-settings.js";

/** An inventory of deployed functions; nothing else is asked. */
function deployed(functions: DeployedFunction[]): DeploymentInventory {
  const none = async () => {
    throw new Error("not asked by the capacity check");
  };
  return {
    enabledApis: none,
    projectRoles: none,
    secretHasVersion: none,
    firestoreIndexes: none,
    sccNotificationTopic: none,
    functions: async () => functions,
  };
}

const target = { projectId: "p", region: "us-central1" };
const governorEnv = (n: number) => ({ FERRET_GOVERNOR_MAX_CONCURRENT: String(n) });

/** Every function as Terraform's defaults deploy it, ingest and sweep carrying the governor's limit. */
async function asTerraformDeploys(governor: number): Promise<DeployedFunction[]> {
  const settings = await terraformSettings();
  return Object.entries(FUNCTIONS).map(([name, { service }]) => {
    const s = settings.functions[name as keyof typeof FUNCTIONS];
    return {
      name: service,
      state: "ACTIVE",
      env: name === "ingest" || name === "sweep" ? governorEnv(governor) : {},
      secretEnv: [],
      maxInstances: s.maxInstances,
      ...(s.concurrency !== 1 ? { concurrency: s.concurrency } : {}),
    };
  });
}

describe("doctor: capacity (issue 36)", () => {
  it("passes Terraform's defaults at its governor default, naming each function's numbers", async () => {
    const settings = await terraformSettings();
    const result = await checkCapacity(
      deployed(await asTerraformDeploys(settings.governorMaxConcurrent)),
      target,
    );
    assert.equal(result.ok, true, result.lines.join("\n"));
    assert.match(result.lines[0] ?? "", /stepExecutor 40 ≥ 40/);
  });

  it("refuses a governor the deployed caps cannot carry, with the reason", async () => {
    const result = await checkCapacity(deployed(await asTerraformDeploys(11)), target);
    assert.equal(result.ok, false);
    const text = result.lines.join("\n");
    assert.match(
      text,
      /stepExecutor: 40 instance\(s\) × 1 request\(s\) = 40 at once < governor 11 investigations × fan-out 4 = 44/,
    );
    assert.match(text, /429/);
    assert.match(result.fixes.join("\n"), /max_instances/);
  });

  it("cannot tell without the governor's limit or an instance cap, and says which", async () => {
    const noGovernor = (await asTerraformDeploys(10)).map((f) => ({ ...f, env: {} }));
    const a = await checkCapacity(deployed(noGovernor), target);
    assert.equal(a.ok, false);
    assert.match(a.lines.join("\n"), /FERRET_GOVERNOR_MAX_CONCURRENT/);
    const noCap = (await asTerraformDeploys(10)).map((f) =>
      f.name === "ferret-planner" ? { name: f.name, state: f.state, env: f.env, secretEnv: [] } : f,
    );
    const b = await checkCapacity(deployed(noCap), target);
    assert.equal(b.ok, false);
    assert.match(b.lines.join("\n"), /planner: its instance cap is unknown/);
  });

  it("a function passes exactly when instances × concurrency reach governor × fan-out", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 8 }),
        (maxInstances, concurrency, governor, fanout) => {
          const [v] = capacityVerdicts({ f: { maxInstances, concurrency } }, governor, { f: fanout });
          assert.equal(v?.ok, maxInstances * concurrency >= governor * fanout);
        },
      ),
    );
  });
});

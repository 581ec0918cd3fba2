import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fanoutLocals } from "../../../scripts/render-workflow-template.js";
import { workflowFanout } from "../../../workflows/fanout.js";
import { defaultVariables, Evaluator, type Variables } from "../../integration/parity/terraform-env.js";
import { arr, block, loadTerraform, obj, REPO_ROOT, resource, type Terraform } from "./hcl.js";

/**
 * Capacity from the same numbers (issue 36): the instance cap of each function the workflow
 * calls is checked by a precondition in terraform/functions.tf against the governor's
 * concurrent investigations times the workflow's fan-out to that function, which
 * terraform/workflow_fanout.tf carries as generated from workflows/investigate.yaml.
 */
const tf: Terraform = await loadTerraform();
const YAML = readFileSync(join(REPO_ROOT, "workflows", "investigate.yaml"), "utf8");

function capacityHolds(name: string, vars: Variables): boolean {
  const fn = resource(tf, "google_cloudfunctions2_function.function");
  const precondition = obj(
    arr(block(fn, "lifecycle", "lifecycle").precondition, "precondition")[0],
    "precondition",
  );
  const ev = new Evaluator(tf, { ...defaultVariables(tf), ...vars }, { key: name, value: {} });
  return ev.value(precondition.condition, `precondition for ${name}`) === true;
}

describe("function instance caps follow the workflow's fan-out", () => {
  it("terraform/workflow_fanout.tf is the one generated from the YAML", () => {
    assert.equal(
      readFileSync(join(REPO_ROOT, "terraform", "workflow_fanout.tf"), "utf8"),
      fanoutLocals(YAML),
      "run `npx tsx scripts/render-workflow-template.ts` and commit terraform/workflow_fanout.tf",
    );
  });

  it("counts a call site once, times every parallel limit around it, through subworkflow calls", () => {
    assert.deepEqual(workflowFanout(YAML), {
      compressor: 4,
      concluder: 1,
      planner: 1,
      reflector: 1,
      responder: 4,
      stepExecutor: 4,
    });
    const nested = `
main:
  steps:
    - init:
        assign:
          - urls:
              a: \${sys.get_env("FERRET_STEP_EXECUTOR_URL")}
    - outer:
        parallel:
          concurrency_limit: 2
          for:
            value: x
            in: [1, 2]
            steps:
              - go:
                  call: inner
                  args:
                    urls: \${urls}
inner:
  params: [urls]
  steps:
    - fan:
        parallel:
          concurrency_limit: 3
          branches:
            - b1:
                steps:
                  - c:
                      call: http.post
                      args:
                        url: \${urls.a}
`;
    assert.deepEqual(workflowFanout(nested), { stepExecutor: 6 });
    assert.throws(
      () => workflowFanout(nested.replace("concurrency_limit: 3", "shared: []")),
      /no concurrency_limit/,
    );
  });

  it("the defaults hold: every workflow-called function can take the governor's investigations at full fan-out", () => {
    for (const name of Object.keys(workflowFanout(YAML))) assert.ok(capacityHolds(name, {}), name);
  });

  it("more concurrent investigations than the caps carry is refused at plan time", () => {
    assert.equal(capacityHolds("stepExecutor", { governor_max_concurrent: 11 }), false);
    assert.equal(capacityHolds("planner", { governor_max_concurrent: 11 }), false);
    assert.equal(
      capacityHolds("stepExecutor", {
        governor_max_concurrent: 11,
        functions: { stepExecutor: { max_instances: 44 } },
      }),
      true,
    );
  });
});

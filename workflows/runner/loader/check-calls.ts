import { InvalidWorkflowError } from "../errors.js";
import type { Subworkflow, WorkflowDefinition } from "./ast.js";
import { forEachStep } from "./walk.js";

/**
 * Subworkflow call steps must name existing parameters and supply the required ones;
 * a subworkflow used as a retry predicate must accept the error as its only argument.
 */
export function checkSubworkflowCalls(def: WorkflowDefinition): void {
  const all: Subworkflow[] = [def.main, ...def.subworkflows.values()];
  for (const sub of all) {
    forEachStep(sub.body, (step) => {
      if (step.kind === "try" && step.retry?.predicate.kind === "subworkflow") {
        const predicate = def.subworkflows.get(step.retry.predicate.name);
        const required = predicate?.params.filter((p) => !p.defaultValue).length ?? 0;
        if (!predicate || predicate.params.length === 0 || required > 1) {
          throw new InvalidWorkflowError(
            `${step.path}.retry.predicate`,
            "a retry predicate subworkflow must take the error as its single parameter",
          );
        }
      }
      if (step.kind !== "call" || step.target.kind !== "subworkflow") return;
      const callee = def.subworkflows.get(step.target.name);
      if (!callee) return;
      const params = new Set(callee.params.map((p) => p.name));
      for (const a of step.args) {
        if (!params.has(a.name)) {
          throw new InvalidWorkflowError(
            `${step.path}.args.${a.name}`,
            `${callee.name} has no parameter '${a.name}'`,
          );
        }
      }
      const given = new Set(step.args.map((a) => a.name));
      for (const p of callee.params) {
        if (!p.defaultValue && !given.has(p.name)) {
          throw new InvalidWorkflowError(`${step.path}.args`, `${callee.name} requires argument '${p.name}'`);
        }
      }
    });
  }
}

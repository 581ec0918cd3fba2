import { InvalidWorkflowError } from "../errors.js";
import { MAX_PARALLEL_BRANCHES, MAX_PARALLEL_NESTING } from "../limits.js";
import type { StepList } from "./ast.js";
import { childLists } from "./walk.js";

/**
 * The parallel limits that can be seen in the source: branches per parallel step, and
 * parallel steps nested inside one another in the same subworkflow. Nesting reached
 * through subworkflow calls is checked at run time (ParallelNestingError).
 */
export function checkParallelLimits(list: StepList, depth = 0): void {
  for (const step of list.steps) {
    let inner = depth;
    if (step.kind === "parallel") {
      inner = depth + 1;
      if (inner > MAX_PARALLEL_NESTING) {
        throw new InvalidWorkflowError(
          step.path,
          `parallel steps can be nested at most ${MAX_PARALLEL_NESTING} deep`,
        );
      }
      if (step.work.kind === "branches" && step.work.branches.length > MAX_PARALLEL_BRANCHES) {
        throw new InvalidWorkflowError(
          `${step.path}.parallel.branches`,
          `a parallel step can have at most ${MAX_PARALLEL_BRANCHES} branches, got ${step.work.branches.length}`,
        );
      }
    }
    for (const child of childLists(step)) checkParallelLimits(child.list, inner);
  }
}

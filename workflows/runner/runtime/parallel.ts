import { errorMap, InvalidWorkflowError, RaisedError, tagged } from "../errors.js";
import { evaluateTemplate } from "../expression/template.js";
import { MAX_PARALLEL_NESTING } from "../limits.js";
import type { ParallelStep } from "../loader/ast.js";
import { isInt, mapOf, typeName, type WfValue } from "../values.js";
import type { Executor, Frame } from "./executor.js";
import { bindIteration, loopItems } from "./loop.js";
import { runPool } from "./pool.js";
import { Scope } from "./scope.js";

// Workflows caps concurrently running branches and iterations at 20 by default.
const DEFAULT_CONCURRENCY = 20;

interface Branch {
  id: WfValue;
  run(): Promise<void>;
}

/**
 * Runs branches or iterations concurrently (policy continueAll: a failure does not
 * stop the others). Once all are done, failures are raised together as one
 * UnhandledBranchError listing each failed branch's id and error.
 */
export async function runParallel(
  step: ParallelStep,
  exec: Executor,
  scope: Scope,
  frame: Frame,
): Promise<void> {
  for (const name of step.shared) {
    if (!scope.has(name)) {
      throw new InvalidWorkflowError(
        `${step.path}.shared`,
        `shared variable '${name}' is not defined before the step`,
      );
    }
  }
  if (frame.parallelDepth >= MAX_PARALLEL_NESTING) {
    throw tagged(
      "ParallelNestingError",
      `parallel steps can be nested at most ${MAX_PARALLEL_NESTING} deep (here through subworkflow calls)`,
    );
  }
  const shared = new Set(step.shared);
  const inner: Frame = { ...frame, parallelDepth: frame.parallelDepth + 1 };
  const branches = buildBranches(step, exec, scope, inner, shared);
  const results = await runPool(
    branches.map((b) => b.run),
    concurrencyLimit(step, exec, scope),
  );
  const failures: WfValue[] = [];
  for (const [i, result] of results.entries()) {
    if (result.ok) continue;
    // Deadline and definition errors are not branch failures; they end the execution.
    if (!(result.error instanceof RaisedError)) throw result.error;
    failures.push(mapOf({ id: branches[i]?.id ?? null, error: result.error.value }));
  }
  if (failures.length > 0) {
    throw new RaisedError(
      errorMap(
        ["UnhandledBranchError"],
        `UnhandledBranchError: ${failures.length} of ${branches.length} branches or iterations raised an unhandled error`,
        { branches: failures, truncated: false },
      ),
    );
  }
}

function buildBranches(
  step: ParallelStep,
  exec: Executor,
  scope: Scope,
  frame: Frame,
  shared: Set<string>,
): Branch[] {
  const { work } = step;
  if (work.kind === "branches") {
    return work.branches.map((branch) => ({
      id: branch.name,
      run: async () => {
        const branchScope = new Scope(scope, "branch", shared);
        try {
          await exec.execList(branch.body, branchScope, frame);
        } finally {
          branchScope.release();
        }
      },
    }));
  }
  return loopItems(work.loop, exec, scope).map((item, i) => ({
    id: i,
    run: async () => {
      const iterationScope = new Scope(scope, "branch", shared);
      try {
        bindIteration(work.loop, iterationScope, item, i);
        await exec.execList(work.loop.body, iterationScope, frame);
      } finally {
        iterationScope.release();
      }
    },
  }));
}

function concurrencyLimit(step: ParallelStep, exec: Executor, scope: Scope): number {
  if (!step.concurrencyLimit) return DEFAULT_CONCURRENCY;
  const limit = evaluateTemplate(step.concurrencyLimit, exec.env(scope));
  if (!isInt(limit) || limit < 1) {
    throw tagged(
      "ValueError",
      `concurrency_limit must be a positive int, got ${typeName(limit)} ${String(limit)}`,
    );
  }
  return limit;
}

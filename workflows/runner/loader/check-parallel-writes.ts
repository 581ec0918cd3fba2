import { InvalidWorkflowError } from "../errors.js";
import type { StepList, Subworkflow } from "./ast.js";

interface ParallelContext {
  /** Variables that existed when the parallel step started. */
  visible: ReadonlySet<string>;
  shared: ReadonlySet<string>;
  path: string;
}

/**
 * Workflows refuses to deploy a branch that assigns a parent-scope variable not
 * listed in `shared`. This mirrors that check in document order; the runtime scope
 * check covers orders the static walk cannot see (jumps).
 */
export function checkParallelWrites(sub: Subworkflow): void {
  walk(sub.body, new Set(sub.params.map((p) => p.name)), []);
}

function walk(list: StepList, declared: Set<string>, stack: readonly ParallelContext[]): void {
  const write = (name: string, path: string): void => {
    for (const ctx of [...stack].reverse()) {
      if (!ctx.visible.has(name)) break;
      if (!ctx.shared.has(name)) {
        throw new InvalidWorkflowError(
          path,
          `cannot assign '${name}' inside parallel step ${ctx.path}: it belongs to the parent scope and is not in 'shared'`,
        );
      }
    }
    declared.add(name);
  };
  for (const step of list.steps) {
    switch (step.kind) {
      case "assign":
        for (const a of step.assignments) write(a.target.root, a.path);
        break;
      case "call":
        if (step.result) write(step.result, `${step.path}.result`);
        break;
      case "switch":
        for (const c of step.cases) {
          for (const a of c.assignments) write(a.target.root, a.path);
          if (c.steps) walk(c.steps, declared, stack);
        }
        break;
      case "steps":
        walk(step.body, declared, stack);
        break;
      case "for":
        walk(step.loop.body, withLoopVars(declared, step.loop), stack);
        break;
      case "try":
        walk(step.body, declared, stack);
        if (step.except?.as) write(step.except.as, `${step.path}.except.as`);
        if (step.except) walk(step.except.body, declared, stack);
        break;
      case "parallel": {
        const ctx: ParallelContext = {
          visible: new Set(declared),
          shared: new Set(step.shared),
          path: step.path,
        };
        const inner = [...stack, ctx];
        if (step.work.kind === "for") {
          walk(step.work.loop.body, withLoopVars(declared, step.work.loop), inner);
        } else {
          for (const branch of step.work.branches) walk(branch.body, new Set(declared), inner);
        }
        break;
      }
      default:
        break;
    }
  }
}

function withLoopVars(declared: ReadonlySet<string>, loop: { value: string; index?: string }): Set<string> {
  const inner = new Set(declared);
  inner.add(loop.value);
  if (loop.index) inner.add(loop.index);
  return inner;
}

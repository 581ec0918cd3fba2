import { InvalidWorkflowError } from "../errors.js";
import { exprVariables, templateVariables } from "../expression/references.js";
import type { Template } from "../expression/template.js";
import type { Assignment, LoopSpec, Step, StepList, Subworkflow } from "./ast.js";
import { checkVariableName } from "./check-names.js";

/**
 * A scope as the Workflows reference describes it: the subworkflow's (params and
 * everything assigned outside loops and branches), a for loop's (its loop variables and
 * variables first assigned in its body), and a parallel branch's or iteration's.
 */
class StaticScope {
  private readonly names = new Set<string>();
  constructor(private readonly parent: StaticScope | null) {}

  has(name: string): boolean {
    return this.names.has(name) || (this.parent?.has(name) ?? false);
  }

  /** An assignment updates a visible variable, or creates one in this scope. */
  assign(name: string, path: string): void {
    checkVariableName(name, path);
    if (!this.has(name)) this.names.add(name);
  }

  /** Loop variables and parameters always live in this very scope. */
  bind(name: string, path: string): void {
    checkVariableName(name, path);
    this.names.add(name);
  }

  child(): StaticScope {
    return new StaticScope(this);
  }
}

/**
 * Refuses reads of variables that no earlier step (in document order) can have
 * assigned in a visible scope, and reserved words used as variable names. Document
 * order is the reference's reading; a workflow that jumps backwards to a step which
 * reads a variable assigned further down would be refused too (none known).
 */
export function checkVariables(sub: Subworkflow): void {
  const scope = new StaticScope(null);
  for (const [i, p] of sub.params.entries()) scope.bind(p.name, `${sub.name}.params[${i}]`);
  walkList(sub.body, scope);
}

function read(template: Template | undefined, scope: StaticScope, path: string): void {
  if (!template) return;
  for (const name of templateVariables(template)) requireDefined(name, scope, path);
}

function requireDefined(name: string, scope: StaticScope, path: string): void {
  if (!scope.has(name)) {
    throw new InvalidWorkflowError(path, `variable '${name}' is not defined in this scope at this point`);
  }
}

function assignAll(assignments: Assignment[], scope: StaticScope): void {
  for (const a of assignments) {
    read(a.value, scope, a.path);
    const indexReads = new Set<string>();
    for (const segment of a.target.path)
      if (segment.kind === "index") exprVariables(segment.expr, indexReads);
    for (const name of indexReads) requireDefined(name, scope, a.path);
    // `a.b: 1` and `a[0]: 1` update an existing variable; only a plain name creates one.
    if (a.target.path.length > 0) requireDefined(a.target.root, scope, a.path);
    scope.assign(a.target.root, a.path);
  }
}

function walkList(list: StepList, scope: StaticScope): void {
  for (const step of list.steps) walkStep(step, scope);
}

function loopScope(loop: LoopSpec, scope: StaticScope, path: string): StaticScope {
  const src = loop.source;
  if (src.kind === "in") read(src.list, scope, `${path}.in`);
  else if (src.kind === "range") {
    read(src.from, scope, `${path}.range`);
    read(src.to, scope, `${path}.range`);
  } else read(src.bounds, scope, `${path}.range`);
  const inner = scope.child();
  inner.bind(loop.value, `${path}.value`);
  if (loop.index) inner.bind(loop.index, `${path}.index`);
  return inner;
}

function walkStep(step: Step, scope: StaticScope): void {
  switch (step.kind) {
    case "assign":
      assignAll(step.assignments, scope);
      return;
    case "call":
      for (const arg of step.args) read(arg.value, scope, `${step.path}.args.${arg.name}`);
      if (step.result) scope.assign(step.result, `${step.path}.result`);
      return;
    case "switch":
      for (const c of step.cases) {
        read(c.condition, scope, `${c.path}.condition`);
        assignAll(c.assignments, scope);
        if (c.steps) walkList(c.steps, scope);
        read(c.returnValue, scope, `${c.path}.return`);
        read(c.raiseValue, scope, `${c.path}.raise`);
      }
      return;
    case "steps":
      walkList(step.body, scope);
      return;
    case "for":
      walkList(step.loop.body, loopScope(step.loop, scope, `${step.path}.for`));
      return;
    case "parallel": {
      read(step.concurrencyLimit, scope, `${step.path}.parallel.concurrency_limit`);
      for (const [i, name] of step.shared.entries()) {
        requireDefined(name, scope, `${step.path}.parallel.shared[${i}]`);
      }
      const { work } = step;
      if (work.kind === "for") {
        walkList(work.loop.body, loopScope(work.loop, scope, `${step.path}.parallel.for`));
      } else {
        for (const branch of work.branches) walkList(branch.body, scope.child());
      }
      return;
    }
    case "try":
      walkList(step.body, scope);
      if (step.retry) {
        for (const t of [
          step.retry.maxRetries,
          step.retry.initialDelay,
          step.retry.maxDelay,
          step.retry.multiplier,
        ])
          read(t, scope, `${step.path}.retry`);
      }
      if (step.except) {
        if (step.except.as) scope.assign(step.except.as, `${step.path}.except.as`);
        walkList(step.except.body, scope);
      }
      return;
    case "raise":
    case "return":
      read(step.value, scope, step.path);
      return;
    case "next":
      return;
  }
}

import { InvalidWorkflowError } from "../errors.js";
import type { Step, StepList, Subworkflow } from "./ast.js";
import { childLists } from "./walk.js";

/**
 * Step names are unique within a subworkflow, nested lists included (for, parallel,
 * try/except and switch bodies): Workflows refuses to deploy a duplicate, whereas a
 * per-list check would let one through.
 */
export function checkStepNames(sub: Subworkflow): void {
  const seen = new Map<string, string>();
  const visit = (list: StepList, synthetic: boolean): void => {
    for (const step of list.steps) {
      // `try:` holding a single step is parsed as a one-step list whose step borrows
      // the try step's own name; that name was recorded with the try step itself.
      if (!synthetic) record(step);
      for (const child of childLists(step)) visit(child.list, isSyntheticTryBody(step, child.list));
    }
  };
  const record = (step: Step): void => {
    const first = seen.get(step.name);
    if (first !== undefined) {
      throw new InvalidWorkflowError(
        step.path,
        `duplicate step name '${step.name}' in ${sub.name} (first used at ${first})`,
      );
    }
    seen.set(step.name, step.path);
  };
  visit(sub.body, false);
}

function isSyntheticTryBody(step: Step, list: StepList): boolean {
  return step.kind === "try" && list === step.body;
}

// The "Reserved word" table of the syntax overview
// (https://cloud.google.com/workflows/docs/reference/syntax/syntax-search), the part of it
// verified for this runner. `args` is in the table too but is left out: the published,
// CI-deployed samples use it as a parameter name (workflows/conformance/samples/args.workflows.yaml).
const RESERVED = new Set([
  "assign",
  "branches",
  "break",
  "call",
  "condition",
  "continue",
  "end",
  "except",
  "for",
  "main",
  "next",
  "parallel",
  "params",
]);

/** Refuses a reserved word where a variable is named. */
export function checkVariableName(name: string, path: string): void {
  if (RESERVED.has(name)) {
    throw new InvalidWorkflowError(
      path,
      `'${name}' is a reserved word of the Workflows syntax, not a variable name`,
    );
  }
}

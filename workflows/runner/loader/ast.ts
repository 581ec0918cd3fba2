import type { Expr } from "../expression/ast.js";
import type { Template } from "../expression/template.js";

/** Where control goes after a step: a sibling (or enclosing) step, or a keyword. */
export type NextTarget =
  | { kind: "step"; name: string }
  | { kind: "end" }
  | { kind: "break" }
  | { kind: "continue" };

/** An assignment target such as `a`, `a.b`, `a["k"]` or `list[i + 1]`. */
export interface LValue {
  root: string;
  path: ({ kind: "key"; key: string } | { kind: "index"; expr: Expr })[];
}

export interface Assignment {
  target: LValue;
  value: Template;
  path: string;
}

export interface StepList {
  steps: Step[];
  byName: ReadonlyMap<string, number>;
}

interface StepBase {
  name: string;
  /** e.g. "main.steps[2].try.steps[0]"; also used for error messages and onStep events. */
  path: string;
  next?: NextTarget;
}

export type CallTarget = { kind: "builtin"; name: string } | { kind: "subworkflow"; name: string };

export interface AssignStep extends StepBase {
  kind: "assign";
  assignments: Assignment[];
}

export interface CallStep extends StepBase {
  kind: "call";
  target: CallTarget;
  args: { name: string; value: Template }[];
  result?: string;
}

export interface SwitchCase {
  path: string;
  condition: Template;
  assignments: Assignment[];
  steps?: StepList;
  returnValue?: Template;
  raiseValue?: Template;
  next?: NextTarget;
}

export interface SwitchStep extends StepBase {
  kind: "switch";
  cases: SwitchCase[];
}

export interface NestedStepsStep extends StepBase {
  kind: "steps";
  body: StepList;
}

export interface LoopSpec {
  value: string;
  index?: string;
  source:
    | { kind: "in"; list: Template }
    | { kind: "range"; from: Template; to: Template }
    /** `range: ${[a, b]}`: one expression that must evaluate to a two-number list. */
    | { kind: "range-expression"; bounds: Template };
  body: StepList;
}

export interface ForStep extends StepBase {
  kind: "for";
  loop: LoopSpec;
}

export interface ParallelStep extends StepBase {
  kind: "parallel";
  shared: string[];
  concurrencyLimit?: Template;
  work: { kind: "branches"; branches: { name: string; body: StepList }[] } | { kind: "for"; loop: LoopSpec };
}

export type RetryPredicate =
  | { kind: "builtin"; name: "http.default_retry_predicate" | "http.default_retry_predicate_non_idempotent" }
  | { kind: "subworkflow"; name: string };

export interface RetrySpec {
  predicate: RetryPredicate;
  maxRetries: Template;
  initialDelay: Template;
  maxDelay: Template;
  multiplier: Template;
}

export interface TryStep extends StepBase {
  kind: "try";
  body: StepList;
  retry?: RetrySpec;
  except?: { as?: string; body: StepList };
}

export interface RaiseStep extends StepBase {
  kind: "raise";
  value: Template;
}

export interface ReturnStep extends StepBase {
  kind: "return";
  value: Template;
}

export interface JumpStep extends StepBase {
  kind: "next";
}

export type Step =
  | AssignStep
  | CallStep
  | SwitchStep
  | NestedStepsStep
  | ForStep
  | ParallelStep
  | TryStep
  | RaiseStep
  | ReturnStep
  | JumpStep;

export interface Param {
  name: string;
  /** Absent means the parameter is required. */
  defaultValue?: Template;
}

export interface Subworkflow {
  name: string;
  params: Param[];
  body: StepList;
}

export interface WorkflowDefinition {
  main: Subworkflow;
  subworkflows: ReadonlyMap<string, Subworkflow>;
}

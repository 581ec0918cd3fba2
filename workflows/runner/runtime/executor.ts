import type { EvalEnv } from "../expression/evaluate.js";
import type { StepList } from "../loader/ast.js";
import type { WfValue } from "../values.js";
import type { RunContext } from "./context.js";
import type { Scope } from "./scope.js";

/** How a step or step list finished, when it did not raise. */
export type Completion =
  | { kind: "normal" }
  | { kind: "jump"; target: string }
  | { kind: "break" }
  | { kind: "continue" }
  | { kind: "return"; value: WfValue };

export const NORMAL: Completion = { kind: "normal" };

/** The running subworkflow, for tracing and the recursion limit. */
export interface Frame {
  routine: string;
  depth: number;
  /** Parallel steps enclosing the running step, across subworkflow calls. */
  parallelDepth: number;
}

/** What the step handlers in separate files need from the interpreter. */
export interface Executor {
  readonly ctx: RunContext;
  env(scope: Scope): EvalEnv;
  execList(list: StepList, scope: Scope, frame: Frame): Promise<Completion>;
  callSubworkflow(name: string, args: ReadonlyMap<string, WfValue>, caller: Frame | null): Promise<WfValue>;
  paramNames(subworkflow: string): readonly string[];
}

import { tagged } from "../errors.js";
import type { EvalEnv } from "../expression/evaluate.js";
import { evaluateTemplate } from "../expression/template.js";
import type { LoopSpec } from "../loader/ast.js";
import {
  clone,
  isInt,
  isList,
  isNumber,
  makeDouble,
  numberValue,
  typeName,
  type WfValue,
} from "../values.js";
import { type Completion, type Executor, type Frame, NORMAL } from "./executor.js";
import { Scope } from "./scope.js";

/** The values a for loop iterates over: the `in` list, or the inclusive `range`. */
export function loopItems(loop: LoopSpec, exec: Executor, scope: Scope): WfValue[] {
  const env = exec.env(scope);
  if (loop.source.kind === "in") {
    const list = evaluateTemplate(loop.source.list, env);
    if (!isList(list)) throw tagged("TypeError", `for 'in' must be a list, got ${typeName(list)}`);
    return list;
  }
  const [from, to] = rangeBounds(loop.source, env);
  if (!isNumber(from) || !isNumber(to)) {
    throw tagged("TypeError", `for range bounds must be numbers, got ${typeName(from)} and ${typeName(to)}`);
  }
  const items: WfValue[] = [];
  const start = numberValue(from);
  for (let v = start; v <= numberValue(to); v++) items.push(isInt(from) ? v : makeDouble(v));
  return items;
}

function rangeBounds(source: Exclude<LoopSpec["source"], { kind: "in" }>, env: EvalEnv): [WfValue, WfValue] {
  if (source.kind === "range") return [evaluateTemplate(source.from, env), evaluateTemplate(source.to, env)];
  const bounds = evaluateTemplate(source.bounds, env);
  if (!isList(bounds) || bounds.length !== 2) {
    throw tagged("TypeError", `for range must evaluate to a list of two numbers, got ${typeName(bounds)}`);
  }
  return [bounds[0] ?? null, bounds[1] ?? null];
}

/** Binds the loop variables of one iteration in `iterationScope`. */
export function bindIteration(loop: LoopSpec, iterationScope: Scope, item: WfValue, index: number): void {
  // A copy, so updating `value.x` in the body does not modify the list being iterated.
  iterationScope.define(loop.value, clone(item));
  if (loop.index) iterationScope.define(loop.index, index);
}

export async function runForLoop(
  loop: LoopSpec,
  exec: Executor,
  scope: Scope,
  frame: Frame,
): Promise<Completion> {
  const items = loopItems(loop, exec, scope);
  // One scope for the whole loop: variables first assigned in the body disappear afterwards.
  const loopScope = new Scope(scope, "loop");
  try {
    for (const [i, item] of items.entries()) {
      bindIteration(loop, loopScope, item, i);
      const completion = await exec.execList(loop.body, loopScope, frame);
      if (completion.kind === "break") break;
      if (completion.kind === "return" || completion.kind === "jump") return completion;
    }
    return NORMAL;
  } finally {
    loopScope.release();
  }
}

import { tagged } from "../errors.js";
import { type EvalEnv, evaluate, readIndex } from "../expression/evaluate.js";
import type { LValue } from "../loader/ast.js";
import { isInt, isList, isMap, typeName, type WfValue } from "../values.js";
import type { Scope } from "./scope.js";

/**
 * Stores `value` at an assignment target. Missing map keys are created at the last
 * level only; a missing intermediate key is a KeyError, and list elements must exist.
 */
export function assignTo(target: LValue, value: WfValue, scope: Scope, env: EvalEnv, path: string): void {
  if (target.path.length === 0) {
    scope.assign(target.root, value, path);
    return;
  }
  const keys = target.path.map((segment) =>
    segment.kind === "key" ? segment.key : evaluate(segment.expr, env),
  );
  let container = scope.readForUpdate(target.root, path);
  for (const key of keys.slice(0, -1)) container = readIndex(container, key);
  const last = keys[keys.length - 1] ?? null;
  if (isMap(container)) {
    if (typeof last !== "string")
      throw tagged("TypeError", `map key must be a string, got ${typeName(last)}`);
    container.set(last, value);
    scope.updated(target.root, path);
  } else if (isList(container)) {
    if (!isInt(last)) throw tagged("TypeError", `list index must be an int, got ${typeName(last)}`);
    if (last < 0 || last >= container.length) {
      throw tagged("IndexError", `list index ${last} out of range (length ${container.length})`);
    }
    container[last] = value;
    scope.updated(target.root, path);
  } else {
    throw tagged("TypeError", `cannot assign into a ${typeName(container)}`);
  }
}

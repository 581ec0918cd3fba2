import { tagged } from "../errors.js";
import { EXPRESSION_FUNCTIONS, type FunctionContext } from "../stdlib/functions.js";
import {
  isInt,
  isList,
  isMap,
  isNumber,
  makeDouble,
  numberValue,
  typeName,
  type WfMap,
  type WfValue,
} from "../values.js";
import type { Expr } from "./ast.js";
import { applyBinary } from "./operators.js";

export interface EvalEnv extends FunctionContext {
  /** Returns the variable's value, or throws the error Workflows raises for an unknown name. */
  lookup(name: string): WfValue;
}

export function evaluate(expr: Expr, env: EvalEnv): WfValue {
  switch (expr.kind) {
    case "literal":
      return expr.value;
    case "variable":
      return env.lookup(expr.name);
    case "property":
      return readKey(evaluate(expr.object, env), expr.key);
    case "index":
      return readIndex(evaluate(expr.object, env), evaluate(expr.index, env));
    case "list":
      return expr.items.map((item) => evaluate(item, env));
    case "map": {
      const out: WfMap = new Map();
      for (const entry of expr.entries) {
        const key = evaluate(entry.key, env);
        if (typeof key !== "string")
          throw tagged("TypeError", `map keys must be strings, got ${typeName(key)}`);
        out.set(key, evaluate(entry.value, env));
      }
      return out;
    }
    case "unary": {
      const value = evaluate(expr.operand, env);
      if (expr.op === "not") return !requireBool(value, "not");
      if (!isNumber(value)) throw tagged("TypeError", `bad operand type for unary -: ${typeName(value)}`);
      return isInt(value) ? -value : makeDouble(-numberValue(value));
    }
    case "binary": {
      if (expr.op === "and" || expr.op === "or") {
        // Short-circuits like Workflows: the right side is evaluated only when needed.
        const left = requireBool(evaluate(expr.left, env), expr.op);
        if (expr.op === "and" ? !left : left) return left;
        return requireBool(evaluate(expr.right, env), expr.op);
      }
      return applyBinary(expr.op, evaluate(expr.left, env), evaluate(expr.right, env));
    }
    case "call": {
      const spec = EXPRESSION_FUNCTIONS.get(expr.fn);
      if (!spec) throw tagged("SystemError", `unknown function ${expr.fn}`);
      return spec.impl(
        expr.args.map((a) => evaluate(a, env)),
        env,
      );
    }
  }
}

function requireBool(value: WfValue, op: string): boolean {
  if (typeof value !== "boolean")
    throw tagged("TypeError", `operand of '${op}' must be a boolean, got ${typeName(value)}`);
  return value;
}

export function readKey(container: WfValue, key: string): WfValue {
  if (!isMap(container)) throw tagged("TypeError", `cannot read key '${key}' of a ${typeName(container)}`);
  if (!container.has(key)) throw tagged("KeyError", `key not found: ${key}`);
  return container.get(key) ?? null;
}

export function readIndex(container: WfValue, index: WfValue): WfValue {
  if (isList(container)) {
    if (!isInt(index)) throw tagged("TypeError", `list index must be an int, got ${typeName(index)}`);
    if (index < 0 || index >= container.length) {
      throw tagged("IndexError", `list index ${index} out of range (length ${container.length})`);
    }
    return container[index] ?? null;
  }
  if (isMap(container)) {
    if (typeof index !== "string")
      throw tagged("TypeError", `map key must be a string, got ${typeName(index)}`);
    return readKey(container, index);
  }
  throw tagged("TypeError", `cannot index a ${typeName(container)}`);
}

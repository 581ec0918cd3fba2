import { tagged } from "../errors.js";
import { checkedStringBytes } from "../sizes.js";
import {
  type Double,
  deepEqual,
  isInt,
  isList,
  isMap,
  isNumber,
  makeDouble,
  numberValue,
  typeName,
  type WfValue,
} from "../values.js";
import type { BinaryOp } from "./ast.js";

type ValueOp = Exclude<BinaryOp, "and" | "or">;

function typeError(op: string, left: WfValue, right: WfValue): never {
  throw tagged("TypeError", `unsupported operand types for ${op}: ${typeName(left)} and ${typeName(right)}`);
}

function numeric(op: string, left: WfValue, right: WfValue): [number, number, boolean] {
  if (!isNumber(left) || !isNumber(right)) return typeError(op, left, right);
  return [numberValue(left), numberValue(right), isInt(left) && isInt(right)];
}

/** int op int stays int; anything involving a double is a double. */
function arith(bothInt: boolean, result: number): number | Double {
  return bothInt ? result : makeDouble(result);
}

function checkDivisor(divisor: number): void {
  if (divisor === 0) throw tagged("ZeroDivisionError", "division by zero");
}

function compare(op: string, left: WfValue, right: WfValue): number {
  if (isNumber(left) && isNumber(right)) return numberValue(left) - numberValue(right);
  if (typeof left === "string" && typeof right === "string") return left < right ? -1 : left > right ? 1 : 0;
  return typeError(op, left, right);
}

function contains(left: WfValue, right: WfValue): boolean {
  if (isList(right)) return right.some((item) => deepEqual(item, left));
  if (isMap(right)) {
    if (typeof left !== "string") throw tagged("TypeError", `map keys are strings, got ${typeName(left)}`);
    return right.has(left);
  }
  return typeError("in", left, right);
}

export function applyBinary(op: ValueOp, left: WfValue, right: WfValue): WfValue {
  switch (op) {
    case "+": {
      if (typeof left === "string" && typeof right === "string") {
        const joined = left + right;
        checkedStringBytes(joined);
        return joined;
      }
      const [a, b, ints] = numeric(op, left, right);
      return arith(ints, a + b);
    }
    case "-": {
      const [a, b, ints] = numeric(op, left, right);
      return arith(ints, a - b);
    }
    case "*": {
      const [a, b, ints] = numeric(op, left, right);
      return arith(ints, a * b);
    }
    case "/": {
      const [a, b] = numeric(op, left, right);
      checkDivisor(b);
      return makeDouble(a / b);
    }
    case "//": {
      const [a, b, ints] = numeric(op, left, right);
      checkDivisor(b);
      return arith(ints, Math.floor(a / b));
    }
    case "%": {
      // Floor-style remainder: the result takes the divisor's sign, consistent with `//`.
      const [a, b, ints] = numeric(op, left, right);
      checkDivisor(b);
      return arith(ints, a - b * Math.floor(a / b));
    }
    case "==":
      return deepEqual(left, right);
    case "!=":
      return !deepEqual(left, right);
    case "<":
      return compare(op, left, right) < 0;
    case "<=":
      return compare(op, left, right) <= 0;
    case ">":
      return compare(op, left, right) > 0;
    case ">=":
      return compare(op, left, right) >= 0;
    case "in":
      return contains(left, right);
  }
}

import { tagged } from "../errors.js";
import {
  type Double,
  isDouble,
  isInt,
  isNumber,
  makeDouble,
  numberValue,
  typeName,
  type WfValue,
} from "../values.js";

/** Text form of a number; integral doubles keep ".0" so they stay distinguishable from ints. */
export function formatNumber(v: number | Double): string {
  const n = numberValue(v);
  if (isDouble(v) && Number.isInteger(n) && Math.abs(n) < 1e21) return `${n}.0`;
  return String(n);
}

const INT_TEXT = /^\s*[+-]?\d+\s*$/;
const DOUBLE_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/*
 * The conversion helpers accept exactly the types the reference lists
 * (https://cloud.google.com/workflows/docs/reference/stdlib/expression-helpers#conversion_functions):
 * int() a string or double, double() a string or integer, string() an integer, double or
 * boolean. A call outside them is refused here as the service may refuse it, so YAML that only
 * works on a lenient runner fails in the tests, not on first deployment.
 */

/** int(): accepts a string or double; doubles are truncated toward zero. */
export function toInt(v: WfValue): number {
  if (isNumber(v) && isDouble(v)) return Math.trunc(numberValue(v));
  if (typeof v === "string") {
    if (!INT_TEXT.test(v)) throw tagged("ValueError", `cannot convert string ${JSON.stringify(v)} to int`);
    return Number.parseInt(v, 10);
  }
  throw tagged("TypeError", `int() does not accept a ${typeName(v)}`);
}

/** double(): accepts a string or integer. */
export function toDouble(v: WfValue): number | Double {
  if (isInt(v)) return makeDouble(numberValue(v));
  if (typeof v === "string") {
    if (!DOUBLE_TEXT.test(v))
      throw tagged("ValueError", `cannot convert string ${JSON.stringify(v)} to double`);
    return makeDouble(Number.parseFloat(v));
  }
  throw tagged("TypeError", `double() does not accept a ${typeName(v)}`);
}

/** string(): accepts an integer, double or boolean. */
export function toText(v: WfValue): string {
  if (typeof v === "boolean") return v ? "true" : "false";
  if (isNumber(v)) return formatNumber(v);
  throw tagged("TypeError", `string() does not accept a ${typeName(v)}`);
}

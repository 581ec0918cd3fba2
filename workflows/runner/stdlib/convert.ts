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

/** int(): accepts a string or double (int passes through); doubles are truncated toward zero. */
export function toInt(v: WfValue): number {
  if (isInt(v)) return v;
  if (isNumber(v)) return Math.trunc(numberValue(v));
  if (typeof v === "string") {
    if (!INT_TEXT.test(v)) throw tagged("ValueError", `cannot convert string ${JSON.stringify(v)} to int`);
    return Number.parseInt(v, 10);
  }
  throw tagged("TypeError", `int() does not accept a ${typeName(v)}`);
}

/** double(): accepts a string or int (double passes through). */
export function toDouble(v: WfValue): number | Double {
  if (isNumber(v)) return makeDouble(numberValue(v));
  if (typeof v === "string") {
    if (!DOUBLE_TEXT.test(v))
      throw tagged("ValueError", `cannot convert string ${JSON.stringify(v)} to double`);
    return makeDouble(Number.parseFloat(v));
  }
  throw tagged("TypeError", `double() does not accept a ${typeName(v)}`);
}

/** string(): accepts an int, double or boolean (string passes through). */
export function toText(v: WfValue): string {
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (isNumber(v)) return formatNumber(v);
  throw tagged("TypeError", `string() does not accept a ${typeName(v)}`);
}

import { tagged } from "../errors.js";
import { Double, isList, isMap, isNumber, numberValue, type WfMap, type WfValue } from "../values.js";
import { formatNumber } from "./convert.js";

export interface JsonIndent {
  prefix: string;
  indent: string;
}

/**
 * Serialises a Workflows value. Doubles keep a fractional part ("2.0") so the
 * int/double distinction survives a round trip through json.decode.
 * With indentation, every line after the first starts with `prefix`, as the
 * json.encode_to_string reference describes.
 */
export function encodeJson(value: WfValue, indent: JsonIndent | null = null): string {
  return encode(value, indent, 0);
}

function encode(value: WfValue, indent: JsonIndent | null, depth: number): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return JSON.stringify(value);
  if (isNumber(value)) {
    if (!Number.isFinite(numberValue(value)))
      throw tagged("ValueError", "cannot JSON-encode a non-finite number");
    return formatNumber(value);
  }
  const items: string[] = isList(value)
    ? value.map((item) => encode(item, indent, depth + 1))
    : [...value].map(
        ([k, item]) => `${JSON.stringify(k)}:${indent ? " " : ""}${encode(item, indent, depth + 1)}`,
      );
  const [open, close] = isList(value) ? ["[", "]"] : ["{", "}"];
  if (items.length === 0) return open + close;
  if (!indent) return open + items.join(",") + close;
  const inner = `\n${indent.prefix}${indent.indent.repeat(depth + 1)}`;
  const outer = `\n${indent.prefix}${indent.indent.repeat(depth)}`;
  return open + inner + items.join(`,${inner}`) + outer + close;
}

/** Parses JSON text; numbers written with a fraction or exponent become doubles. */
export function decodeJson(text: string): WfValue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) => {
      if (typeof value === "number" && Number.isInteger(value) && /[.eE]/.test(context?.source ?? "")) {
        return new Double(value);
      }
      return value;
    });
  } catch (err) {
    throw tagged("ValueError", `invalid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return fromParsedJson(parsed);
}

function fromParsedJson(u: unknown): WfValue {
  if (u === null || typeof u === "boolean" || typeof u === "string" || typeof u === "number") return u;
  if (u instanceof Double) return u;
  if (Array.isArray(u)) return u.map(fromParsedJson);
  const out: WfMap = new Map();
  if (typeof u === "object") {
    for (const [k, item] of Object.entries(u)) out.set(k, fromParsedJson(item));
  }
  return out;
}

export function parseIndentOption(option: WfValue): JsonIndent | null {
  if (option === null || option === false) return null;
  if (option === true) return { prefix: "", indent: "    " };
  if (isMap(option)) {
    const prefix = option.get("prefix") ?? "";
    const indent = option.get("indent") ?? "    ";
    if (typeof prefix === "string" && typeof indent === "string") return { prefix, indent };
  }
  throw tagged("TypeError", "indent must be a boolean or a map with string 'prefix' and 'indent'");
}

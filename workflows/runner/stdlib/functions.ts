import { tagged } from "../errors.js";
import { isList, isMap, isNumber, makeDouble, numberValue, typeName, type WfValue } from "../values.js";
import { toDouble, toInt, toText } from "./convert.js";
import { decodeJson, encodeJson, parseIndentOption } from "./json.js";
import { formatTimestamp } from "./time.js";

/** What a non-blocking function may observe about the execution. */
export interface FunctionContext {
  env: Readonly<Record<string, string>>;
  nowMs(): number;
}

/**
 * A function usable inside `${...}` and, for standard-library modules, as a call step.
 * `params` are the documented argument names, used to map a call step's named args.
 */
export interface ExpressionFunction {
  readonly params: readonly string[];
  readonly required: number;
  /** Expression helpers such as len() exist only in expressions, not as call targets. */
  readonly callable: boolean;
  impl(args: readonly WfValue[], ctx: FunctionContext): WfValue;
}

function fn(
  params: string[],
  required: number,
  impl: ExpressionFunction["impl"],
  callable = true,
): ExpressionFunction {
  return { params, required, impl, callable };
}

function str(v: WfValue | undefined, what: string): string {
  if (typeof v !== "string")
    throw tagged("TypeError", `${what} must be a string, got ${typeName(v ?? null)}`);
  return v;
}

function arg(args: readonly WfValue[], i: number): WfValue {
  return args[i] ?? null;
}

function len(v: WfValue): number {
  if (typeof v === "string") return [...v].length;
  if (isList(v)) return v.length;
  if (isMap(v)) return v.size;
  throw tagged("TypeError", `len() does not accept a ${typeName(v)}`);
}

function mapGet(map: WfValue, keys: WfValue): WfValue {
  const path = typeof keys === "string" ? [keys] : keys;
  if (!isList(path) || !path.every((k) => typeof k === "string")) {
    throw tagged("TypeError", "map.get keys must be a string or a list of strings");
  }
  let current: WfValue = map;
  for (const key of path) {
    if (!isMap(current) || typeof key !== "string" || !current.has(key)) return null;
    current = current.get(key) ?? null;
  }
  return current;
}

function replaceAll(source: string, substr: string, repl: string): string {
  // Documented: an empty pattern matches at the start and after every code point.
  if (substr === "") return repl + [...source].join(repl) + repl;
  return source.split(substr).join(repl);
}

export const EXPRESSION_FUNCTIONS: ReadonlyMap<string, ExpressionFunction> = new Map([
  ["len", fn(["value"], 1, (a) => len(arg(a, 0)), false)],
  [
    "keys",
    fn(
      ["map"],
      1,
      (a) => {
        const m = arg(a, 0);
        if (!isMap(m)) throw tagged("TypeError", `keys() does not accept a ${typeName(m)}`);
        return [...m.keys()];
      },
      false,
    ),
  ],
  ["default", fn(["val", "defaultVal"], 2, (a) => (arg(a, 0) === null ? arg(a, 1) : arg(a, 0)), false)],
  ["int", fn(["value"], 1, (a) => toInt(arg(a, 0)), false)],
  ["double", fn(["value"], 1, (a) => toDouble(arg(a, 0)), false)],
  ["string", fn(["value"], 1, (a) => toText(arg(a, 0)), false)],
  ["map.get", fn(["map", "keys"], 2, (a) => mapGet(arg(a, 0), arg(a, 1)))],
  [
    "list.concat",
    fn(["objs", "val"], 2, (a) => {
      const list = arg(a, 0);
      if (!isList(list)) throw tagged("TypeError", `list.concat objs must be a list, got ${typeName(list)}`);
      return [...list, arg(a, 1)];
    }),
  ],
  [
    "list.prepend",
    fn(["objs", "val"], 2, (a) => {
      const list = arg(a, 0);
      if (!isList(list)) throw tagged("TypeError", `list.prepend objs must be a list, got ${typeName(list)}`);
      return [arg(a, 1), ...list];
    }),
  ],
  [
    "json.encode_to_string",
    fn(["data", "indent"], 1, (a) => encodeJson(arg(a, 0), parseIndentOption(arg(a, 1)))),
  ],
  ["json.decode", fn(["data"], 1, (a) => decodeJson(str(arg(a, 0), "json.decode data")))],
  [
    "text.split",
    fn(["source", "separator"], 2, (a) => {
      const source = str(arg(a, 0), "text.split source");
      const separator = str(arg(a, 1), "text.split separator");
      if (separator === "") throw tagged("ValueError", "text.split separator must not be empty");
      return source.split(separator);
    }),
  ],
  [
    "text.replace_all",
    fn(["source", "substr", "repl"], 3, (a) =>
      replaceAll(
        str(arg(a, 0), "text.replace_all source"),
        str(arg(a, 1), "text.replace_all substr"),
        str(arg(a, 2), "text.replace_all repl"),
      ),
    ),
  ],
  [
    "time.format",
    fn(["seconds", "timezone"], 1, (a) => {
      const seconds = arg(a, 0);
      if (!isNumber(seconds))
        throw tagged("TypeError", `time.format seconds must be a number, got ${typeName(seconds)}`);
      const zone = arg(a, 1);
      return formatTimestamp(numberValue(seconds), zone === null ? "" : str(zone, "time.format timezone"));
    }),
  ],
  ["sys.now", fn([], 0, (_a, ctx) => makeDouble(ctx.nowMs() / 1000))],
  [
    "sys.get_env",
    fn(["name", "default"], 1, (a, ctx) => {
      const name = str(arg(a, 0), "sys.get_env name");
      const fallback = arg(a, 1);
      if (fallback !== null) str(fallback, "sys.get_env default");
      return Object.hasOwn(ctx.env, name) ? (ctx.env[name] ?? null) : fallback;
    }),
  ],
]);

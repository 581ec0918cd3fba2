// Workflows distinguishes int from double, but JS numbers do not. Non-integral
// numbers are unambiguously doubles, so only integral doubles (the result of
// `4 / 2`, a literal `2.0`, `double(2)`) need a wrapper to keep their type.
export class Double {
  constructor(readonly value: number) {}
}

export type WfMap = Map<string, WfValue>;
export type WfValue = null | boolean | string | number | Double | WfValue[] | WfMap;

export type TypeName = "null" | "bool" | "string" | "int" | "double" | "list" | "map";

export function isMap(v: WfValue): v is WfMap {
  return v instanceof Map;
}

export function isList(v: WfValue): v is WfValue[] {
  return Array.isArray(v);
}

export function isNumber(v: WfValue): v is number | Double {
  return typeof v === "number" || v instanceof Double;
}

export function isInt(v: WfValue): v is number {
  return typeof v === "number" && Number.isInteger(v);
}

export function isDouble(v: WfValue): boolean {
  return v instanceof Double || (typeof v === "number" && !Number.isInteger(v));
}

export function numberValue(v: number | Double): number {
  return v instanceof Double ? v.value : v;
}

export function makeDouble(n: number): number | Double {
  return Number.isInteger(n) ? new Double(n) : n;
}

export function typeName(v: WfValue): TypeName {
  if (v === null) return "null";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (isInt(v)) return "int";
  if (isNumber(v)) return "double";
  if (isList(v)) return "list";
  return "map";
}

export function clone(v: WfValue): WfValue {
  if (isList(v)) return v.map(clone);
  if (isMap(v)) {
    const out: WfMap = new Map();
    for (const [k, item] of v) out.set(k, clone(item));
    return out;
  }
  return v;
}

export function deepEqual(a: WfValue, b: WfValue): boolean {
  if (isNumber(a) && isNumber(b)) return numberValue(a) === numberValue(b);
  if (isList(a) && isList(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i] ?? null));
  }
  if (isMap(a) && isMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, item] of a) {
      if (!b.has(k) || !deepEqual(item, b.get(k) ?? null)) return false;
    }
    return true;
  }
  return a === b;
}

export function mapOf(entries: Record<string, WfValue>): WfMap {
  return new Map(Object.entries(entries));
}

/** Converts a runner value to plain JSON-compatible JS for callers of the runner. */
export function toJs(v: WfValue): unknown {
  if (v instanceof Double) return v.value;
  if (isList(v)) return v.map(toJs);
  if (isMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, item] of v) {
      // defineProperty keeps a "__proto__" key as data instead of reparenting the object.
      Object.defineProperty(out, k, {
        value: toJs(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return v;
}

/** Converts caller-provided JS data (execution arguments) into runner values. */
export function fromJs(u: unknown, path = "args"): WfValue {
  if (u === null || u === undefined) return null;
  if (typeof u === "boolean" || typeof u === "string") return u;
  if (typeof u === "number") {
    if (!Number.isFinite(u)) throw new TypeError(`${path}: non-finite number is not a Workflows value`);
    return u;
  }
  if (Array.isArray(u)) return u.map((item, i) => fromJs(item, `${path}[${i}]`));
  if (typeof u === "object") {
    const out: WfMap = new Map();
    for (const [k, item] of Object.entries(u)) out.set(k, fromJs(item, `${path}.${k}`));
    return out;
  }
  throw new TypeError(`${path}: ${typeof u} is not a Workflows value`);
}

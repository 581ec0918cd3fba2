import { tagged } from "../errors.js";
import { clone, isList, isMap, typeName, type WfMap, type WfValue } from "../values.js";
import type { Expr } from "./ast.js";
import { type EvalEnv, evaluate } from "./evaluate.js";
import { parseExpression } from "./parse.js";

/**
 * A YAML value with its `${...}` parts compiled. Workflows only evaluates a string
 * that is one whole expression; "a ${b}" is plain text. Map keys may be expressions too.
 */
export type Template =
  | { kind: "constant"; value: WfValue }
  | { kind: "expression"; expr: Expr; source: string }
  | { kind: "list"; items: Template[] }
  | { kind: "map"; entries: { key: Template; value: Template }[] };

/** Returns the inner source of a `${...}` string, or null for plain values. */
export function expressionSource(value: WfValue): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  if (!trimmed.startsWith("${") || !trimmed.endsWith("}")) return null;
  return trimmed.slice(2, -1);
}

export function compileTemplate(value: WfValue, path: string): Template {
  const source = expressionSource(value);
  if (source !== null) return { kind: "expression", expr: parseExpression(source, path), source };
  if (isList(value)) {
    const items = value.map((item, i) => compileTemplate(item, `${path}[${i}]`));
    return items.every((t) => t.kind === "constant") ? { kind: "constant", value } : { kind: "list", items };
  }
  if (isMap(value)) {
    const entries = [...value].map(([k, item]) => ({
      key: compileTemplate(k, `${path}.${k}`),
      value: compileTemplate(item, `${path}.${k}`),
    }));
    const constant = entries.every((e) => e.key.kind === "constant" && e.value.kind === "constant");
    return constant ? { kind: "constant", value } : { kind: "map", entries };
  }
  return { kind: "constant", value };
}

export function evaluateTemplate(template: Template, env: EvalEnv): WfValue {
  switch (template.kind) {
    case "constant":
      // Constants are shared by every execution of the step, so callers get a private copy.
      return clone(template.value);
    case "expression":
      return evaluate(template.expr, env);
    case "list":
      return template.items.map((item) => evaluateTemplate(item, env));
    case "map": {
      const out: WfMap = new Map();
      for (const entry of template.entries) {
        const key = evaluateTemplate(entry.key, env);
        if (typeof key !== "string")
          throw tagged("TypeError", `map keys must be strings, got ${typeName(key)}`);
        out.set(key, evaluateTemplate(entry.value, env));
      }
      return out;
    }
  }
}

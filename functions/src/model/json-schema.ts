import { z } from "zod";
import type { JsonObject, JsonValue } from "../domain/json.js";

/**
 * A zod schema as a self-contained JSON Schema (draft 2020-12) that any model adapter can
 * send: no `$ref`/`$defs`, no `$schema`, described from the *input* side because the model
 * writes what zod then parses.
 *
 * Recursive schemas (e.g. JsonValueSchema) cannot be inlined; they are unrolled once and the
 * deeper level becomes `{}` (any JSON). zod still validates the full shape afterwards, so the
 * JSON Schema only has to guide the model, not to be the last line of defence.
 */
export function jsonSchemaOf(schema: z.ZodType): JsonObject {
  const raw = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    reused: "inline",
    cycles: "ref",
    io: "input",
    unrepresentable: "any",
  }) as unknown as JsonObject;
  const defs = isObject(raw.$defs) ? raw.$defs : {};
  const { $defs: _defs, $schema: _schema, ...root } = raw;
  return simplify(inlineRefs(root, defs, new Set()));
}

function inlineRefs(node: JsonValue, defs: JsonObject, expanding: Set<string>): JsonValue {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, defs, expanding));
  if (!isObject(node)) return node;
  const ref = node.$ref;
  if (typeof ref === "string") {
    const name = ref.replace(/^#\/\$defs\//, "");
    const target = defs[name];
    // Second visit of the same definition on one path: this is the recursion, cut it to "any".
    if (target === undefined || expanding.has(name)) return {};
    const { $ref: _ref, ...siblings } = node;
    const inner = inlineRefs(target, defs, new Set([...expanding, name]));
    return isObject(inner) ? { ...inner, ...siblings } : inner;
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) out[key] = inlineRefs(value, defs, expanding);
  return out;
}

const SAFE_INT = Number.MAX_SAFE_INTEGER;

/**
 * Removes noise zod adds that only costs prompt tokens: the ±2^53 bounds of every
 * z.number().int() and the long regex behind string formats the model already knows by name.
 */
function simplify(node: JsonValue): JsonObject {
  const walk = (value: JsonValue): JsonValue => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isObject(value)) return value;
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === "minimum" && child === -SAFE_INT) continue;
      if (key === "maximum" && child === SAFE_INT) continue;
      if (key === "pattern" && typeof value.format === "string") continue;
      out[key] = walk(child);
    }
    return out;
  };
  const result = walk(node);
  return isObject(result) ? result : {};
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

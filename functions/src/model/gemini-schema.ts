import type { JsonObject, JsonValue } from "../domain/json.js";
import { isObject } from "./json-schema.js";

/** Keywords Gemini's JSON-Schema fields do not use; sending them risks a 400 for nothing. */
const DROPPED = new Set([
  "$schema",
  "$id",
  "$comment",
  "$anchor",
  "propertyNames",
  "contentEncoding",
  "contentMediaType",
]);
const SCHEMA_MAPS = new Set(["properties", "$defs", "patternProperties"]);
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
const SCHEMA_VALUES = new Set(["items", "additionalProperties", "not", "contains"]);

/**
 * Rewrites a portable JSON Schema into the subset `responseJsonSchema` and
 * `parametersJsonSchema` accept. It walks schema positions only, so a property that happens
 * to be called "const" or "$id" is left alone. `const` becomes a one-value `enum`, which
 * means the same and is understood by every Gemini version.
 */
export function toGeminiJsonSchema(schema: JsonObject): JsonObject {
  return rewrite(schema);
}

function rewrite(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    if (key === "const") {
      if (node.enum === undefined) out.enum = [value];
      continue;
    }
    out[key] = rewriteKeyword(key, value);
  }
  return out;
}

function rewriteKeyword(key: string, value: JsonValue): JsonValue {
  if (SCHEMA_MAPS.has(key) && isObject(value)) {
    const map: JsonObject = {};
    for (const [name, child] of Object.entries(value)) map[name] = isObject(child) ? rewrite(child) : child;
    return map;
  }
  if (SCHEMA_LISTS.has(key) && Array.isArray(value))
    return value.map((child) => (isObject(child) ? rewrite(child) : child));
  if (SCHEMA_VALUES.has(key) && isObject(value)) return rewrite(value);
  return value;
}

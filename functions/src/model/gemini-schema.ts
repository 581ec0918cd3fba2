import type { JsonObject, JsonValue } from "../domain/json.js";
import { isObject } from "./json-schema.js";

/**
 * The JSON Schema keywords Gemini documents for `responseJsonSchema` (and function declarations'
 * `parametersJsonSchema`): https://ai.google.dev/gemini-api/docs/structured-output ("JSON Schema
 * support": type, title, description; properties, required, additionalProperties for objects;
 * enum and format for strings; minimum, maximum for numbers; items, prefixItems, minItems, maxItems
 * for arrays; anyOf, $ref and $defs), and propertyOrdering from the Schema reference. Anything
 * else is not enforced by the API, so the model is not held to it: it is not sent as a keyword.
 */
export const DOCUMENTED_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "title",
  "description",
  "properties",
  "required",
  "additionalProperties",
  "enum",
  "format",
  "minimum",
  "maximum",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "anyOf",
  "$ref",
  "$defs",
  "propertyOrdering",
]);

/** Keywords that only annotate for tooling: nothing for the model to know. */
const SILENT = new Set(["$schema", "$id", "$comment", "$anchor", "contentEncoding", "contentMediaType"]);
const SCHEMA_MAPS = new Set(["properties", "$defs"]);
const SCHEMA_LISTS = new Set(["anyOf", "prefixItems"]);
const SCHEMA_VALUES = new Set(["items", "additionalProperties"]);

/**
 * What an undocumented keyword asks, said in words for the description: the model reads the
 * description, and zod (which the schema came from) still holds the answer to the keyword.
 */
function phrase(keyword: string, value: JsonValue): string | undefined {
  const json = JSON.stringify(value);
  switch (keyword) {
    case "minLength":
      return value === 1 ? "Not empty." : `At least ${json} characters.`;
    case "maxLength":
      return `At most ${json} characters.`;
    case "pattern":
      return `Must match the regular expression ${json}.`;
    case "default":
      return `When omitted: ${json}.`;
    case "oneOf":
      return "Exactly one of the alternatives applies.";
    case "propertyNames":
      // JSON keys are strings already: only a constraint beyond that is worth saying.
      return json === '{"type":"string"}' ? undefined : `Every key: ${json}.`;
    default:
      return `${keyword}: ${json}.`;
  }
}

/**
 * Rewrites a portable JSON Schema into what Gemini enforces. It walks schema positions only, so
 * a property that happens to be called "pattern" or "$id" is left alone. Documented keywords pass;
 * `const` becomes a one-value `enum` and `oneOf` an `anyOf` (the same for the disjoint branches a
 * discriminated union has); every other keyword's meaning moves into the node's description.
 */
export function toGeminiJsonSchema(schema: JsonObject): JsonObject {
  return rewrite(schema);
}

function rewrite(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  const said: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (SILENT.has(key)) continue;
    if (key === "const") {
      if (node.enum === undefined) out.enum = [value];
      continue;
    }
    if (key === "oneOf" && Array.isArray(value) && node.anyOf === undefined) {
      out.anyOf = value.map((child) => (isObject(child) ? rewrite(child) : child));
      said.push(phrase(key, value) ?? "");
      continue;
    }
    if (!DOCUMENTED_KEYWORDS.has(key)) {
      said.push(phrase(key, value) ?? "");
      continue;
    }
    out[key] = rewriteKeyword(key, value);
  }
  const words = said.filter((text) => text !== "");
  if (words.length > 0) {
    const own = typeof out.description === "string" && out.description !== "" ? [out.description] : [];
    out.description = [...own, ...words].join(" ");
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

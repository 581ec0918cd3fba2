import type { JsonObject, JsonValue } from "../../domain/json.js";
import { geminiSchemaProblems } from "../../tools/registry.js";

/**
 * Keywords an MCP server's JSON Schema commonly carries that a Gemini declaration cannot:
 * dropped from what the model is shown only. Arguments are still validated against the
 * server's whole schema, so `additionalProperties: false` keeps its force.
 */
const DROPPED = new Set(["$schema", "additionalProperties", "$id", "$comment", "examples"]);

function isNullSchema(value: JsonValue): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value) && value.type === "null";
}

/**
 * An optional argument as Pydantic/FastMCP and zod servers write it — `anyOf: [T, {type: null}]`
 * or `type: [T, "null"]` — is Gemini's `nullable: true` on T. Any other union stays as it is
 * (and is reported as a problem).
 */
function nullableUnion(schema: JsonObject): JsonObject | undefined {
  const { anyOf, type, ...rest } = schema;
  if (Array.isArray(anyOf) && anyOf.length === 2 && type === undefined) {
    const other = anyOf.filter((branch) => !isNullSchema(branch));
    const only = other[0];
    if (other.length !== 1 || only === null || typeof only !== "object" || Array.isArray(only))
      return undefined;
    return { ...only, ...rest, nullable: true };
  }
  if (Array.isArray(type) && type.length === 2 && type.includes("null")) {
    const other = type.find((t) => t !== "null");
    if (typeof other !== "string" || other === "null") return undefined;
    return { ...rest, type: other, nullable: true };
  }
  return undefined;
}

function strip(schema: JsonValue): JsonValue {
  if (schema === null || typeof schema !== "object") return schema;
  if (Array.isArray(schema)) return schema.map(strip);
  const unwrapped = nullableUnion(schema);
  if (unwrapped) return strip(unwrapped);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    if (key === "properties" && value && typeof value === "object" && !Array.isArray(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strip(v)]));
    } else if (key === "items") {
      out.items = strip(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * The declaration the model sees, or why the tool cannot be offered to Gemini. The server's
 * own schema, not this one, validates the arguments, so a rewrite here loosens nothing.
 */
export function declaredParameters(inputSchema: JsonObject): { parameters: JsonObject; problems: string[] } {
  const parameters = strip(inputSchema) as JsonObject;
  return { parameters, problems: geminiSchemaProblems(parameters) };
}

import type { JsonObject, JsonValue } from "../../domain/json.js";
import { geminiSchemaProblems } from "../../tools/registry.js";

/**
 * Keywords an MCP server's JSON Schema commonly carries that a Gemini declaration cannot:
 * dropped from what the model is shown only. Arguments are still validated against the
 * server's whole schema, so `additionalProperties: false` keeps its force.
 */
const DROPPED = new Set(["$schema", "additionalProperties", "$id", "$comment", "examples"]);

function strip(schema: JsonValue): JsonValue {
  if (schema === null || typeof schema !== "object") return schema;
  if (Array.isArray(schema)) return schema.map(strip);
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

/** The declaration the model sees, or why the tool cannot be offered to Gemini. */
export function declaredParameters(inputSchema: JsonObject): { parameters: JsonObject; problems: string[] } {
  const parameters = strip(inputSchema) as JsonObject;
  return { parameters, problems: geminiSchemaProblems(parameters) };
}

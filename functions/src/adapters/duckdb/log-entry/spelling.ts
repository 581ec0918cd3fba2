import type { JsonObject, JsonValue } from "../../../domain/json.js";
import type { FieldDef } from "../../../sql/log-schema.js";

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * BigQuery resolves column names case-insensitively, so the sink's `jsonpayload.queryname`
 * is the log schema's `jsonPayload.queryName`. DuckDB reads JSON keys case-sensitively, so a
 * converted row takes the log schema's spelling of every name that matches one
 * case-insensitively before it is loaded; names outside the log schema are left alone.
 */
export function schemaSpelling(row: JsonObject, fields: readonly FieldDef[]): JsonObject {
  const byLower = new Map(fields.map((f) => [f.name.toLowerCase(), f]));
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(row)) {
    const field = byLower.get(key.toLowerCase());
    const name = field?.name ?? key;
    if (name in out && field?.name !== key) continue;
    out[name] = field && typeof field.type !== "string" ? respell(value, field.type) : value;
  }
  return out;
}

function respell(value: JsonValue, fields: readonly FieldDef[]): JsonValue {
  if (Array.isArray(value)) return value.map((v) => respell(v, fields));
  return isObject(value) ? schemaSpelling(value, fields) : value;
}

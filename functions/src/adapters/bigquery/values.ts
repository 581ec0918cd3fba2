import type { JsonObject, JsonValue } from "../../domain/json.js";
import type { Row, TableField } from "./resources.js";

/**
 * BigQuery REST rows (`{f: [{v}]}` with every scalar as a string) as the JSON the agent
 * reads, the same way the DuckDB adapter renders its values: int64 as a number when exact
 * (a string beyond 2^53), timestamps as ISO-8601 UTC, structs as objects, arrays as arrays.
 * Types without a JSON equivalent (NUMERIC beyond double precision, BYTES, DATE, GEOGRAPHY,
 * INTERVAL, RANGE) keep the text BigQuery printed, which is exact.
 */
export function rowsToJson(fields: readonly TableField[], rows: readonly Row[]): JsonObject[] {
  return rows.map((row) => recordToJson(fields, row));
}

function recordToJson(fields: readonly TableField[], record: unknown): JsonObject {
  const cells = isRecordValue(record) ? record.f : [];
  const out: JsonObject = {};
  fields.forEach((field, k) => {
    out[field.name] = fieldToJson(field, cells[k]?.v ?? null);
  });
  return out;
}

function isRecordValue(value: unknown): value is { f: Array<{ v?: unknown } | undefined> } {
  return typeof value === "object" && value !== null && Array.isArray((value as { f?: unknown }).f);
}

function fieldToJson(field: TableField, value: unknown): JsonValue {
  if (value === null || value === undefined) return field.mode === "REPEATED" ? [] : null;
  if (field.mode === "REPEATED") {
    if (!Array.isArray(value)) return [];
    return value.map((item: unknown) =>
      elementToJson(field, typeof item === "object" && item !== null ? (item as { v?: unknown }).v : item),
    );
  }
  return elementToJson(field, value);
}

function elementToJson(field: TableField, value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  const type = field.type.toUpperCase();
  if (type === "RECORD" || type === "STRUCT") return recordToJson(field.fields ?? [], value);
  if (typeof value !== "string")
    return typeof value === "number" || typeof value === "boolean" ? value : null;
  switch (type) {
    case "INTEGER":
    case "INT64":
      return integer(value);
    case "FLOAT":
    case "FLOAT64": {
      const n = Number(value);
      // NaN and ±Infinity have no JSON number; BigQuery's spelling survives as text.
      return Number.isFinite(n) ? n : value;
    }
    case "NUMERIC":
    case "BIGNUMERIC":
      return decimal(value);
    case "BOOLEAN":
    case "BOOL":
      return value === "true";
    case "TIMESTAMP":
      return timestamp(value);
    case "JSON":
      return json(value);
    default:
      return value;
  }
}

function integer(text: string): JsonValue {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** A decimal becomes a number only when the number prints back to the same value. */
function decimal(text: string): JsonValue {
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  const canonical = text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
  return String(n) === canonical ? n : text;
}

/**
 * With formatOptions.useInt64Timestamp the value is microseconds since the epoch; older
 * answers (and the default) use float seconds such as "1.718071234E9". Both are handled.
 */
function timestamp(text: string): JsonValue {
  if (/^-?\d+$/.test(text)) {
    const micros = BigInt(text);
    // BigInt division truncates toward zero; timestamps before 1970 need the floor.
    const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
    const date = new Date(Number(ms));
    return Number.isNaN(date.getTime()) ? text : date.toISOString();
  }
  const seconds = Number(text);
  if (!Number.isFinite(seconds)) return text;
  const date = new Date(Math.round(seconds * 1000));
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

function json(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

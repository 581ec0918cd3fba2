import {
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  type DuckDBValueConverter,
  JsonDuckDBValueConverter,
} from "@duckdb/node-api";
import type { JsonValue } from "../../domain/json.js";

/**
 * DuckDB values as JSON the agent can read: 64-bit integers as numbers when exact (as
 * strings beyond 2^53), timestamps as ISO-8601 UTC like BigQuery prints them; structs,
 * lists and the rest as DuckDB's own JSON conversion renders them, recursing through this
 * converter so nested values get the same treatment.
 */
export const toJsonValue: DuckDBValueConverter<JsonValue> = (value, type, converter) => {
  if (value === null) return null;
  if (typeof value === "bigint") {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value.toString();
  }
  if ((value instanceof DuckDBTimestampValue || value instanceof DuckDBTimestampTZValue) && value.isFinite) {
    return new Date(Number(value.micros / 1000n)).toISOString();
  }
  if (type.typeId === DuckDBTypeId.SQLNULL) return null;
  return JsonDuckDBValueConverter(value, type, converter) as JsonValue;
};

import type { FieldDef, LogTableDef, ScalarType } from "../../sql/log-schema.js";

const DUCK_SCALAR: Record<ScalarType, string> = {
  STRING: "VARCHAR",
  INT64: "BIGINT",
  FLOAT64: "DOUBLE",
  BOOL: "BOOLEAN",
  TIMESTAMP: "TIMESTAMP",
};

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The DuckDB type of a log schema field: structs stay structs, repeated fields become lists. */
export function duckDbType(field: FieldDef): string {
  const base =
    typeof field.type === "string"
      ? DUCK_SCALAR[field.type]
      : `STRUCT(${field.type.map((f) => `${quote(f.name)} ${duckDbType(f)}`).join(", ")})`;
  return field.repeated ? `${base}[]` : base;
}

function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * Loads one JSONL file with the log schema instead of auto-detection: sparse nested
 * fields (present in a handful of rows) keep their type, absent ones read as NULL, and
 * keys outside the schema are ignored, so every table has the same shape in every scenario.
 */
export function loadTableSql(table: LogTableDef, file: string): string {
  const columns = table.fields.map((f) => `${sqlString(f.name)}: ${sqlString(duckDbType(f))}`).join(", ");
  return (
    `CREATE TABLE ${quote(table.name)} AS SELECT * FROM read_json(${sqlString(file)}, ` +
    `format = 'newline_delimited', columns = {${columns}})`
  );
}

export function createEmptyTableSql(table: LogTableDef): string {
  return `CREATE TABLE ${quote(table.name)} (${table.fields.map((f) => `${quote(f.name)} ${duckDbType(f)}`).join(", ")})`;
}

/** A table outside the log schema: DuckDB infers the structs. */
export function loadInferredTableSql(name: string, file: string): string {
  return `CREATE TABLE ${quote(name)} AS SELECT * FROM read_json_auto(${sqlString(file)}, format = 'newline_delimited')`;
}

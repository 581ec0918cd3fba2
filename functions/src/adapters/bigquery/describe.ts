import type { ColumnInfo } from "../../ports/log-warehouse.js";
import { fieldDescriptions, type LogTableDef } from "../../sql/log-schema.js";
import type { TableField } from "./resources.js";

/** The REST API still speaks legacy type names; the agent writes GoogleSQL. */
const GOOGLE_SQL_NAMES: Record<string, string> = {
  INTEGER: "INT64",
  FLOAT: "FLOAT64",
  BOOLEAN: "BOOL",
  RECORD: "STRUCT",
};

function typeName(field: TableField): string {
  const base = field.type.toUpperCase();
  const name = GOOGLE_SQL_NAMES[base] ?? base;
  return field.mode === "REPEATED" ? `ARRAY<${name}>` : name;
}

/**
 * Every column and nested field as a dotted path, typed the way the DuckDB warehouse
 * names them. Descriptions come from ferret's log schema when the table is known (they say
 * what the field answers), else from BigQuery. Fields inside a repeated record are marked,
 * because reaching them needs UNNEST.
 */
export function describeFields(fields: readonly TableField[], table: LogTableDef | undefined): ColumnInfo[] {
  const descriptions = table ? fieldDescriptions(table.fields) : new Map<string, string>();
  const out: ColumnInfo[] = [];
  const visit = (field: TableField, prefix: string, insideArray: string | undefined) => {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const notes = [
      descriptions.get(path) ?? (field.description?.trim() || undefined),
      insideArray ? `inside ARRAY ${insideArray}: UNNEST it to read this field` : undefined,
    ];
    const description = notes.filter((n): n is string => n !== undefined).join("; ");
    out.push({ name: path, type: typeName(field), ...(description ? { description } : {}) });
    const repeated = field.mode === "REPEATED";
    for (const child of field.fields ?? []) visit(child, path, insideArray ?? (repeated ? path : undefined));
  };
  for (const field of fields) visit(field, "", undefined);
  return out;
}

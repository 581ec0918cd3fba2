import { type DuckDBType, DuckDBTypeId } from "@duckdb/node-api";
import type { ColumnInfo } from "../../ports/log-warehouse.js";
import { fieldDescriptions, type LogTableDef } from "../../sql/log-schema.js";

/** DuckDB types named the way the agent writes SQL: BigQuery's names. */
function bigQueryTypeName(type: DuckDBType): string {
  switch (type.typeId) {
    case DuckDBTypeId.VARCHAR:
      return "STRING";
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.HUGEINT:
      return "INT64";
    case DuckDBTypeId.DOUBLE:
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DECIMAL:
      return "FLOAT64";
    case DuckDBTypeId.BOOLEAN:
      return "BOOL";
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
      return "TIMESTAMP";
    case DuckDBTypeId.DATE:
      return "DATE";
    case DuckDBTypeId.STRUCT:
      return "STRUCT";
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      return `ARRAY<${bigQueryTypeName(type.valueType)}>`;
    default:
      return type.toString();
  }
}

/**
 * Lists every column and nested field as a dotted path. Fields inside an ARRAY of STRUCT
 * are listed too, with a note that the array must be UNNESTed to reach them.
 */
export function describeColumns(
  names: readonly string[],
  types: readonly DuckDBType[],
  table: LogTableDef | undefined,
): ColumnInfo[] {
  const descriptions = table ? fieldDescriptions(table.fields) : new Map<string, string>();
  const out: ColumnInfo[] = [];
  const visit = (path: string, type: DuckDBType, insideArray: string | undefined) => {
    const notes = [
      descriptions.get(path),
      insideArray ? `inside ARRAY ${insideArray}: UNNEST it to read this field` : undefined,
    ];
    const description = notes.filter((n): n is string => n !== undefined).join("; ");
    out.push({ name: path, type: bigQueryTypeName(type), ...(description ? { description } : {}) });
    if (type.typeId === DuckDBTypeId.STRUCT) {
      for (const [k, entry] of type.entryNames.entries())
        visit(`${path}.${entry}`, type.entryTypes[k]!, insideArray);
    }
    if (type.typeId === DuckDBTypeId.LIST && type.valueType.typeId === DuckDBTypeId.STRUCT) {
      const element = type.valueType;
      for (const [k, entry] of element.entryNames.entries()) {
        visit(`${path}.${entry}`, element.entryTypes[k]!, insideArray ?? path);
      }
    }
  };
  for (const [k, name] of names.entries()) visit(name, types[k]!, undefined);
  return out;
}

import { SqlRefusedError } from "../domain/errors.js";
import type { InformationSchemaView } from "./table-names.js";

/**
 * How a guarded statement is written for the engine that runs it. Queries are written in
 * BigQuery SQL; the DuckDB target translates the few lexical differences (parameters,
 * quoting, string literals, UNNEST aliases) so the same text runs on both.
 */
export interface SqlTarget {
  readonly dialect: "bigquery" | "duckdb";
  table(name: string): string;
  informationSchema(view: InformationSchemaView): string;
  param(name: string): string;
  /** Re-renders a string literal from its decoded value; undefined keeps the source text. */
  stringLiteral(value: string): string | undefined;
  /** Re-renders a `quoted` identifier; undefined keeps the source text. */
  quotedIdentifier(name: string): string | undefined;
  /** A function spelled differently on this engine (SAFE_CAST → TRY_CAST); undefined keeps it. */
  functionName(name: string): string | undefined;
  /** DuckDB names the UNNEST element column only with `AS x(x)`. */
  readonly unnestColumnAlias: boolean;
}

const DUCKDB_FUNCTION_NAMES: Record<string, string> = { SAFE_CAST: "TRY_CAST" };

export function bigQueryTarget(scope: { project?: string; dataset: string }): SqlTarget {
  const prefix = scope.project ? `${scope.project}.${scope.dataset}` : scope.dataset;
  return {
    dialect: "bigquery",
    table: (name) => `\`${prefix}.${name}\``,
    informationSchema: (view) => `\`${prefix}.INFORMATION_SCHEMA.${view}\``,
    param: (name) => `@${name}`,
    stringLiteral: () => undefined,
    quotedIdentifier: () => undefined,
    functionName: () => undefined,
    unnestColumnAlias: false,
  };
}

function duckIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export const duckDbTarget: SqlTarget = {
  dialect: "duckdb",
  table: duckIdentifier,
  informationSchema: (view) => {
    if (view === "TABLES") return "information_schema.tables";
    if (view === "COLUMNS") return "information_schema.columns";
    throw new SqlRefusedError(
      `INFORMATION_SCHEMA.${view} is not available in the local warehouse; use the log_tables tool`,
    );
  },
  param: (name) => `$${name}`,
  // DuckDB strings have no backslash escapes and double quotes are identifiers there.
  stringLiteral: (value) => `'${value.replaceAll("'", "''")}'`,
  quotedIdentifier: duckIdentifier,
  functionName: (name) => DUCKDB_FUNCTION_NAMES[name.toUpperCase()],
  unnestColumnAlias: true,
};

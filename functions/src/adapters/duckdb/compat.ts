/**
 * BigQuery spellings DuckDB lacks, defined once per database so runbooks and the agent's
 * SQL stay valid BigQuery. Only exact equivalents belong here; where the semantics differ
 * (REGEXP_EXTRACT's group, TIMESTAMP_DIFF's date part) nothing is faked.
 */
export const BIGQUERY_COMPAT_SQL: readonly string[] = [
  "CREATE TYPE FLOAT64 AS DOUBLE",
  "CREATE MACRO regexp_contains(value, pattern) AS regexp_matches(value, pattern)",
  "CREATE MACRO logical_or(x) AS bool_or(x)",
  "CREATE MACRO logical_and(x) AS bool_and(x)",
  "CREATE MACRO json_extract_scalar(json, path) AS json_extract_string(json, path)",
  "CREATE MACRO format_timestamp(fmt, ts) AS strftime(ts, fmt)",
  "CREATE MACRO timestamp_sub(ts, step) AS ts - step",
  "CREATE MACRO timestamp_add(ts, step) AS ts + step",
];

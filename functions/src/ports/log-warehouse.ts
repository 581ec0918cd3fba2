import type { JsonObject } from "../domain/json.js";

export interface ColumnInfo {
  /** Dotted path for nested fields, e.g. protopayload_auditlog.authenticationInfo.principalEmail */
  name: string;
  type: string;
  description?: string;
}

export interface TableInfo {
  name: string;
  description: string;
  columns: ColumnInfo[];
}

export type SqlParam = string | number | boolean;

export interface QueryRequest {
  /** One read-only SELECT/WITH statement; named parameters as @name. */
  sql: string;
  params?: Record<string, SqlParam>;
  /** Rows per page handed back; the full result is capped by the adapter's row limit. */
  pageSize?: number;
  /** Opaque token from a previous QueryResult to read the next page. */
  pageToken?: string;
  /** Labels attached to provider jobs (BigQuery job labels). */
  labels?: Record<string, string>;
  /** The calling step's deadline: BigQuery cancels a running job when it fires. */
  signal?: AbortSignal;
}

export interface QueryResult {
  columns: string[];
  rows: JsonObject[];
  /** Rows in the (capped) result set, not only this page. */
  totalRows: number;
  nextPageToken?: string;
  /** True when the row cap cut the result. */
  truncated: boolean;
  bytesProcessed?: number;
  /** The statement that actually ran, after the guard qualified tables and added LIMIT. */
  executedSql: string;
}

/**
 * Read-only access to exported Cloud Logging tables. Both adapters run every statement
 * through the SQL guard first; BigQuery also dry-runs to enforce the scan cap.
 */
export interface LogWarehouse {
  readonly dialect: "bigquery" | "duckdb";
  listTables(): Promise<TableInfo[]>;
  describeTable(name: string): Promise<TableInfo>;
  query(request: QueryRequest): Promise<QueryResult>;
  close(): Promise<void>;
}

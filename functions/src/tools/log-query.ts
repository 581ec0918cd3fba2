import { z } from "zod";
import { ConfigError } from "../domain/errors.js";
import { extractIocs, type Ioc } from "../domain/ioc.js";
import { type JsonObject, type JsonValue, jsonBytes } from "../domain/json.js";
import type { LogWarehouse, QueryRequest, QueryResult, SqlParam } from "../ports/log-warehouse.js";
import { MAX_SQL_CHARS } from "../sql/guard.js";
import { type RunbookLibrary, renderRunbook } from "../sql/runbooks.js";
import { type AnyTool, defineTool } from "./port.js";

export interface LogQueryToolOptions {
  warehouse: LogWarehouse;
  runbooks: RunbookLibrary;
  /** Serialized size of one page handed back; a larger page is re-read with fewer rows. */
  maxPageBytes?: number;
  /** Longest string kept in a cell; longer ones are cut and marked. */
  maxCellChars?: number;
}

export const LOG_QUERY_LIMITS = {
  defaultPageSize: 25,
  maxPageSize: 100,
  maxPageBytes: 24_000,
  maxCellChars: 600,
  maxIocs: 50,
};

function capCell(value: JsonValue, maxChars: number): JsonValue {
  if (typeof value === "string")
    return value.length <= maxChars
      ? value
      : `${value.slice(0, maxChars)}…[${value.length - maxChars} more chars]`;
  if (Array.isArray(value)) return value.map((v) => capCell(v, maxChars));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, capCell(v, maxChars)]));
  }
  return value;
}

function firstSentence(text: string): string {
  const end = text.indexOf(". ");
  return end === -1 ? text : text.slice(0, end + 1);
}

/** Drops the parameters the caller left out, so only given values reach the query. */
function presentParams(params: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

function buildInput(runbooks: RunbookLibrary) {
  const names = runbooks.names();
  const paramShape: Record<string, z.ZodOptional<z.ZodString>> = {};
  for (const runbook of runbooks.list()) {
    for (const param of runbook.params) {
      paramShape[param.name] ??= z
        .string()
        .max(512)
        .optional()
        .describe(`${param.type}: ${param.description}`);
    }
  }
  const [first, ...rest] = names;
  if (first === undefined) throw new ConfigError("log_query needs at least one runbook");
  return z
    .object({
      runbook: z
        .enum([first, ...rest])
        .optional()
        .describe("A named runbook (preferred). Give its parameters in params."),
      params: z
        .object(paramShape)
        .transform(presentParams)
        .optional()
        .describe(
          "Runbook parameters, or the values of @name parameters used in sql. Timestamps are ISO 8601.",
        ),
      sql: z
        .string()
        .min(1)
        .max(MAX_SQL_CHARS)
        .optional()
        .describe(
          "One read-only BigQuery SELECT over the log tables, with @name parameters; LIMIT is enforced.",
        ),
      pageSize: z
        .number()
        .int()
        .min(1)
        .max(LOG_QUERY_LIMITS.maxPageSize)
        .optional()
        .describe("Rows per page (default 25)."),
      pageToken: z
        .string()
        .max(512)
        .optional()
        .describe("nextPageToken of the previous call, with the same runbook/sql and params."),
    })
    .refine((v) => (v.runbook === undefined) !== (v.sql === undefined), {
      message: "give exactly one of runbook or sql",
    });
}

export type LogQueryInput = z.infer<ReturnType<typeof buildInput>>;

function describeTool(runbooks: RunbookLibrary, dialect: LogWarehouse["dialect"]): string {
  const list = runbooks
    .list()
    .map((r) => `\`${r.name}\`(${r.params.map((p) => p.name).join(", ")}): ${firstSentence(r.description)}`)
    .join("\n");
  return [
    "Query the exported Cloud Logging tables (audit logs, VPC flows, DNS queries, syslog) read-only.",
    `Write BigQuery SQL${dialect === "duckdb" ? " (run locally by DuckDB; the same SQL runs on BigQuery)" : ""}; one SELECT, allowlisted tables only, @name parameters, LIMIT enforced.`,
    "Always bound timestamp with @start/@end anchored on the finding's eventTime. Use log_tables for columns.",
    "Results are paged: pass nextPageToken back with the same arguments for more rows.",
    `Runbooks:\n${list}`,
  ].join("\n");
}

/** The rows of the page, cells capped, re-read with fewer rows until the page fits its byte budget. */
async function boundedPage(
  warehouse: LogWarehouse,
  request: QueryRequest,
  limits: { maxPageBytes: number; maxCellChars: number },
): Promise<{ result: QueryResult; rows: JsonObject[] }> {
  let pageSize = request.pageSize ?? LOG_QUERY_LIMITS.defaultPageSize;
  for (;;) {
    const result = await warehouse.query({ ...request, pageSize });
    const rows = result.rows.map((row) => capCell(row, limits.maxCellChars) as JsonObject);
    if (rows.length <= 1 || jsonBytes(rows) <= limits.maxPageBytes) return { result, rows };
    pageSize = Math.max(1, Math.floor(rows.length / 2));
  }
}

export function createLogQueryTool(options: LogQueryToolOptions): AnyTool {
  const { warehouse, runbooks } = options;
  const limits = {
    maxPageBytes: options.maxPageBytes ?? LOG_QUERY_LIMITS.maxPageBytes,
    maxCellChars: options.maxCellChars ?? LOG_QUERY_LIMITS.maxCellChars,
  };
  return defineTool({
    name: "log_query",
    description: describeTool(runbooks, warehouse.dialect),
    input: buildInput(runbooks),
    async run(input) {
      const paging = {
        pageSize: input.pageSize ?? LOG_QUERY_LIMITS.defaultPageSize,
        ...(input.pageToken ? { pageToken: input.pageToken } : {}),
      };
      const params: Record<string, SqlParam> = input.params ?? {};
      const request: QueryRequest = input.runbook
        ? renderRunbook(runbooks.get(input.runbook), params, paging)
        : { sql: input.sql ?? "", params, ...paging };
      const { result, rows } = await boundedPage(warehouse, request, limits);
      const label = input.runbook ? `runbook ${input.runbook}` : "query";
      const iocs: Ioc[] = extractIocs(JSON.stringify(rows))
        .slice(0, LOG_QUERY_LIMITS.maxIocs)
        .map((ioc) => ({ ...ioc, context: `seen in ${label} results` }));
      const summary =
        result.totalRows === 0
          ? `${label}: no rows matched (check the window and filters; an empty table and a quiet host look the same).`
          : `${label}: ${result.totalRows} row(s)${result.truncated ? " (cut at the row cap: narrow the query)" : ""}; ` +
            `this page has ${rows.length}${result.nextPageToken ? "; more with pageToken" : ""}. Columns: ${result.columns.join(", ")}.`;
      return {
        ok: true,
        summary,
        data: {
          ...(input.runbook ? { runbook: input.runbook } : {}),
          params: request.params ?? {},
          columns: result.columns,
          rows,
          totalRows: result.totalRows,
          truncated: result.truncated,
          ...(result.nextPageToken ? { nextPageToken: result.nextPageToken } : {}),
          executedSql: result.executedSql,
        },
        iocs,
      };
    },
  });
}

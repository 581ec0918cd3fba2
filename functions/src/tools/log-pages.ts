import { z } from "zod";
import type { Ioc } from "../domain/ioc.js";
import { type JsonObject, type JsonValue, jsonBytes } from "../domain/json.js";
import { logRowIocs } from "../domain/log-row-iocs.js";
import { inSpan } from "../platform/tracing.js";
import type { LogWarehouse, QueryRequest, QueryResult, SqlParam } from "../ports/log-warehouse.js";
import { type RunbookLibrary, renderRunbook } from "../sql/runbooks.js";
import type { ToolContext, ToolOutput } from "./port.js";

/**
 * Reading one bounded page of the log warehouse for an agent: shared by `log_query` (the
 * main agent's direct tool) and the log-analysis sub-agent's internal tools, so both hand
 * back the same shape, the same caps and the same IOC extraction.
 */
export const LOG_QUERY_LIMITS = {
  defaultPageSize: 25,
  maxPageSize: 100,
  maxPageBytes: 24_000,
  maxCellChars: 600,
  maxIocs: 50,
};

export interface PageLimits {
  /** Serialized size of one page handed back; a larger page is re-read with fewer rows. */
  maxPageBytes: number;
  /** Longest string kept in a cell; longer ones are cut and marked. */
  maxCellChars: number;
}

export interface LogPageDeps {
  warehouse: LogWarehouse;
  runbooks: RunbookLibrary;
  limits: PageLimits;
}

/** One read: a named runbook with its parameters, or one read-only SELECT with @name values. */
export interface LogPageRequest {
  runbook?: string;
  sql?: string;
  params: Record<string, SqlParam>;
  pageSize?: number;
  pageToken?: string;
  /** Provider job labels (BigQuery), e.g. the investigation the query serves. */
  labels?: Record<string, string>;
}

export function capCell(value: JsonValue, maxChars: number): JsonValue {
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

/** Drops the parameters the caller left out, so only given values reach the query. */
export function presentParams(params: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

/**
 * One optional string per parameter name any runbook declares. Tool arguments must be a
 * plain object schema (Gemini takes no additionalProperties), so the names are listed.
 */
export function runbookParamShape(runbooks: RunbookLibrary): Record<string, z.ZodOptional<z.ZodString>> {
  const shape: Record<string, z.ZodOptional<z.ZodString>> = {};
  for (const runbook of runbooks.list()) {
    for (const param of runbook.params) {
      shape[param.name] ??= z.string().max(512).optional().describe(`${param.type}: ${param.description}`);
    }
  }
  return shape;
}

/** What a read honours from the calling step: its deadline and the investigation's scan budget. */
export type PageGuard = Pick<ToolContext, "signal" | "scanBudget">;

/**
 * One warehouse query under the guard: nothing starts once the step's deadline has fired,
 * and a query that starts a scan first reserves its worst case from the investigation's
 * budget (refused if the budget cannot cover it), then keeps only what it reported. Reading
 * a further page of a finished job (pageToken) scans nothing, so it reserves nothing.
 */
async function guardedQuery(
  warehouse: LogWarehouse,
  request: QueryRequest,
  guard: PageGuard,
): Promise<QueryResult> {
  guard.signal?.throwIfAborted();
  const reservation = request.pageToken ? undefined : await guard.scanBudget?.reserve();
  let bytes: number | undefined;
  try {
    // The query's span: its bytes scanned, never its SQL or rows (platform/tracing.ts).
    const result = await inSpan(
      "log_warehouse.query",
      { "ferret.next_page": request.pageToken !== undefined },
      async (span) => {
        const answer = await warehouse.query(guard.signal ? { ...request, signal: guard.signal } : request);
        if (answer.bytesProcessed !== undefined)
          span.setAttribute("ferret.bytes_scanned", answer.bytesProcessed);
        return answer;
      },
    );
    bytes = result.bytesProcessed;
    return result;
  } finally {
    await reservation?.settle(bytes);
  }
}

/** The rows of the page, cells capped, re-read with fewer rows until the page fits its byte budget. */
async function boundedPage(
  warehouse: LogWarehouse,
  request: QueryRequest,
  limits: PageLimits,
  guard: PageGuard,
): Promise<{ result: QueryResult; rows: JsonObject[] }> {
  let pageSize = request.pageSize ?? LOG_QUERY_LIMITS.defaultPageSize;
  for (;;) {
    const result = await guardedQuery(warehouse, { ...request, pageSize }, guard);
    const rows = result.rows.map((row) => capCell(row, limits.maxCellChars) as JsonObject);
    if (rows.length <= 1 || jsonBytes(rows) <= limits.maxPageBytes) return { result, rows };
    pageSize = Math.max(1, Math.floor(rows.length / 2));
  }
}

/**
 * Runs the runbook or statement (the warehouse applies the SQL guard) and returns one
 * bounded page: rows, total, next-page token, the executed SQL and the IOCs seen in the rows.
 * Errors (refused SQL, bad parameters, engine failures) are thrown for the registry to contain.
 */
export async function readLogPage(
  deps: LogPageDeps,
  input: LogPageRequest,
  guard: PageGuard = {},
): Promise<ToolOutput> {
  const paging = {
    pageSize: input.pageSize ?? LOG_QUERY_LIMITS.defaultPageSize,
    ...(input.pageToken ? { pageToken: input.pageToken } : {}),
  };
  const base: QueryRequest = input.runbook
    ? renderRunbook(deps.runbooks.get(input.runbook), input.params, paging)
    : { sql: input.sql ?? "", params: input.params, ...paging };
  const request: QueryRequest = input.labels
    ? { ...base, labels: { ...base.labels, ...input.labels } }
    : base;
  const { result, rows } = await boundedPage(deps.warehouse, request, deps.limits, guard);
  const label = input.runbook ? `runbook ${input.runbook}` : "query";
  // The same typing rules as a finding's (domain/ioc-rules.ts): versions are not addresses, commands not domains.
  const iocs: Ioc[] = logRowIocs(rows, LOG_QUERY_LIMITS.maxIocs).map((ioc) => ({
    ...ioc,
    context: `seen in ${label} results`,
  }));
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
}

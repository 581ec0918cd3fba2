import { z } from "zod";
import { ConfigError, InvalidInputError } from "../domain/errors.js";
import type { JsonObject } from "../domain/json.js";
import type { ColumnInfo, LogWarehouse, SqlParam } from "../ports/log-warehouse.js";
import { MAX_SQL_CHARS } from "../sql/guard.js";
import type { RunbookLibrary } from "../sql/runbooks.js";
import {
  type LogPageDeps,
  type PageGuard,
  presentParams,
  readLogPage,
  runbookParamShape,
} from "../tools/log-pages.js";
import { describeLogTables } from "../tools/log-tables.js";
import { type AnyTool, defineTool, type ToolOutput } from "../tools/port.js";
import { createToolRegistry, type ToolRegistry } from "../tools/registry.js";
import type { PagedRead, SessionState } from "./session-state.js";
import { LOG_ANALYST_TOOLS as T } from "./tool-names.js";

export const ANALYST_PAGE = { defaultPageSize: 50, maxPageSize: 100, maxDistinct: 50, defaultDistinct: 20 };

export interface AnalystToolDeps {
  warehouse: LogWarehouse;
  runbooks: RunbookLibrary;
  limits: LogPageDeps["limits"];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WINDOW_PARAMS = ["start", "end"] as const;

/** Reads a page and remembers its next-page token, so `next_page` can continue it from the token alone. */
async function readAndRemember(
  deps: AnalystToolDeps,
  state: SessionState,
  guard: PageGuard,
  read: PagedRead,
  pageToken?: string,
): Promise<ToolOutput> {
  const output = await readLogPage(
    { warehouse: deps.warehouse, runbooks: deps.runbooks, limits: deps.limits },
    { ...read, ...(pageToken ? { pageToken } : {}) },
    guard,
  );
  const data = output.data;
  if (
    data !== null &&
    typeof data === "object" &&
    !Array.isArray(data) &&
    typeof data.nextPageToken === "string"
  )
    state.rememberPage(data.nextPageToken, read);
  return output;
}

/** @start/@end the statement uses but was not given default to the session's window. */
function withWindow(
  names: readonly string[],
  params: Record<string, SqlParam>,
  state: SessionState,
): Record<string, SqlParam> {
  const out = { ...params };
  for (const name of WINDOW_PARAMS)
    if (names.includes(name) && out[name] === undefined) out[name] = state.window[name];
  return out;
}

function paramsUsed(sql: string): string[] {
  return WINDOW_PARAMS.filter((name) => new RegExp(`@${name}\\b`).test(sql));
}

/**
 * A lexical nudge, not a guarantee (the warehouse's scan cap is that): a statement over log
 * tables that never mentions time reads the whole retention, which is slow, costly and
 * never what an investigation anchored on one event needs.
 */
function requireTimeBound(sql: string, state: SessionState): void {
  if (/\btimestamp\b/i.test(sql) || paramsUsed(sql).length > 0) return;
  throw new InvalidInputError(
    `the query has no time bound: add WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP) (@start/@end default to this session's window, ${state.window.start} to ${state.window.end})`,
  );
}

function suggestFields(columns: readonly ColumnInfo[], field: string): string[] {
  const leaf = (field.split(".").at(-1) ?? field).toLowerCase();
  return columns
    .map((c) => c.name)
    .filter((name) => name.toLowerCase().includes(leaf))
    .slice(0, 8);
}

/** The one column the distinct-values probe may read: an existing, scalar, non-repeated field. */
function probeColumn(columns: readonly ColumnInfo[], table: string, field: string): ColumnInfo {
  const column = columns.find((c) => c.name === field);
  if (!column) {
    const like = suggestFields(columns, field);
    throw new InvalidInputError(
      `${table} has no field ${field}${like.length > 0 ? ` (fields with a similar name: ${like.join(", ")})` : "; describe_table lists the fields"}`,
    );
  }
  if (!field.split(".").every((part) => IDENTIFIER.test(part)))
    throw new InvalidInputError(`field ${field} is not a plain dotted path`);
  if (/^(STRUCT|ARRAY)/.test(column.type) || /inside ARRAY/.test(column.description ?? ""))
    throw new InvalidInputError(
      `${field} is a record or inside a repeated field; pick a leaf field, or use ${T.runQuery} with UNNEST`,
    );
  return column;
}

function runbookTools(deps: AnalystToolDeps, state: SessionState): AnyTool[] {
  const { runbooks } = deps;
  const [first, ...rest] = runbooks.names();
  if (first === undefined) throw new ConfigError("the log analyst needs at least one runbook");
  const paramShape = runbookParamShape(runbooks);
  return [
    defineTool({
      name: T.listRunbooks,
      readOnly: true,
      description:
        "List the runbooks (vetted, parameterized queries) with what each answers and its parameters.",
      input: z.object({}),
      run: async () => ({
        ok: true,
        summary: `${runbooks.names().length} runbooks: ${runbooks.names().join(", ")}.`,
        data: {
          runbooks: runbooks.list().map((r) => ({
            name: r.name,
            description: r.description,
            tables: r.tables,
            params: r.params.map((p) => ({ name: p.name, type: p.type, description: p.description })),
          })),
        },
      }),
    }),
    defineTool({
      name: T.runRunbook,
      readOnly: true,
      description:
        "Run a runbook with its parameters. start/end default to the session window. Rows are paged: use next_page with the nextPageToken for more.",
      input: z.object({
        runbook: z.enum([first, ...rest]).describe("The runbook to run."),
        params: z
          .object(paramShape)
          .transform(presentParams)
          .optional()
          .describe("The runbook's parameters; timestamps ISO 8601."),
        pageSize: z.number().int().min(1).max(ANALYST_PAGE.maxPageSize).optional().describe("Rows per page."),
      }),
      run: async (input, ctx) => {
        const runbook = runbooks.get(input.runbook);
        const params = withWindow(
          runbook.params.map((p) => p.name),
          input.params ?? {},
          state,
        );
        return readAndRemember(deps, state, ctx, {
          runbook: input.runbook,
          params,
          pageSize: input.pageSize ?? ANALYST_PAGE.defaultPageSize,
        });
      },
    }),
  ];
}

function schemaTools(deps: AnalystToolDeps, state: SessionState): AnyTool[] {
  const { warehouse } = deps;
  const Timestamp = z.iso.datetime({ offset: true });
  return [
    defineTool({
      name: T.listTables,
      readOnly: true,
      description: "List the log tables with their descriptions and top-level columns.",
      input: z.object({}),
      run: () => describeLogTables(warehouse),
    }),
    defineTool({
      name: T.describeTable,
      readOnly: true,
      description:
        "Every column and nested field of one table as dotted paths with types (e.g. protopayload_auditlog.authenticationInfo.principalEmail).",
      input: z.object({ table: z.string().min(1).max(200).describe("Table name.") }),
      run: (input) => describeLogTables(warehouse, input.table),
    }),
    defineTool({
      name: T.distinctValues,
      readOnly: true,
      description:
        "The values one field really holds in a window, most frequent first, with counts and first/last time. Use it when a query returns 0 rows or odd values, before concluding anything.",
      input: z.object({
        table: z.string().min(1).max(200).describe("Table name."),
        field: z
          .string()
          .min(1)
          .max(300)
          .describe("Dotted path of a scalar field, e.g. jsonPayload.src_instance.vm_name."),
        start: Timestamp.optional().describe("Window start; default the session window."),
        end: Timestamp.optional().describe("Window end; default the session window."),
        limit: z
          .number()
          .int()
          .min(1)
          .max(ANALYST_PAGE.maxDistinct)
          .optional()
          .describe(`How many values (default ${ANALYST_PAGE.defaultDistinct}).`),
      }),
      run: async (input, ctx) => {
        const table = await warehouse.describeTable(input.table);
        probeColumn(table.columns, table.name, input.field);
        const timed = table.columns.some((c) => c.name === "timestamp" && c.type === "TIMESTAMP");
        const limit = input.limit ?? ANALYST_PAGE.defaultDistinct;
        const sql = [
          `SELECT ${input.field} AS value, COUNT(*) AS n`,
          timed ? ", MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen" : "",
          ` FROM ${table.name}`,
          timed ? " WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)" : "",
          ` GROUP BY 1 ORDER BY n DESC LIMIT ${limit}`,
        ].join("");
        const window = { start: input.start ?? state.window.start, end: input.end ?? state.window.end };
        const output = await readAndRemember(deps, state, ctx, {
          sql,
          params: timed ? window : {},
          pageSize: limit,
        });
        const rows = rowsOf(output);
        const top = rows
          .slice(0, 6)
          .map((r) => `${JSON.stringify(r.value ?? null)} (${String(r.n ?? "?")})`)
          .join(", ");
        return {
          ...output,
          summary:
            rows.length === 0
              ? `distinct values of ${input.field} in ${table.name}${timed ? ` between ${window.start} and ${window.end}` : ""}: none — the table holds no rows there.`
              : `distinct values of ${input.field} in ${table.name}${timed ? ` between ${window.start} and ${window.end}` : ""}: ${rows.length} shown, most frequent ${top}.`,
        };
      },
    }),
  ];
}

function rowsOf(output: ToolOutput): JsonObject[] {
  const data = output.data;
  if (data === null || typeof data !== "object" || Array.isArray(data) || !Array.isArray(data.rows))
    return [];
  return data.rows.filter((r): r is JsonObject => r !== null && typeof r === "object" && !Array.isArray(r));
}

function queryTools(deps: AnalystToolDeps, state: SessionState): AnyTool[] {
  const paramShape = runbookParamShape(deps.runbooks);
  return [
    defineTool({
      name: T.runQuery,
      readOnly: true,
      description:
        "Run one read-only BigQuery Standard SQL SELECT over the log tables (bare table names, @name parameters, LIMIT enforced). Bound it in time with @start/@end, which default to the session window.",
      input: z.object({
        sql: z.string().min(1).max(MAX_SQL_CHARS).describe("One SELECT (WITH allowed)."),
        params: z
          .object(paramShape)
          .transform(presentParams)
          .optional()
          .describe("Values of the @name parameters the SQL uses."),
        pageSize: z.number().int().min(1).max(ANALYST_PAGE.maxPageSize).optional().describe("Rows per page."),
      }),
      run: async (input, ctx) => {
        requireTimeBound(input.sql, state);
        const params = withWindow(paramsUsed(input.sql), input.params ?? {}, state);
        return readAndRemember(deps, state, ctx, {
          sql: input.sql,
          params,
          pageSize: input.pageSize ?? ANALYST_PAGE.defaultPageSize,
        });
      },
    }),
    defineTool({
      name: T.nextPage,
      readOnly: true,
      description:
        "The next page of an earlier run_runbook, run_query or distinct_values result, by its nextPageToken.",
      input: z.object({
        pageToken: z.string().min(1).max(512).describe("nextPageToken from an earlier result."),
      }),
      run: async (input, ctx) => {
        const read = state.pageFor(input.pageToken);
        return readAndRemember(deps, state, ctx, read, input.pageToken);
      },
    }),
  ];
}

/** The sub-agent's tools for one session, behind a registry that validates and contains every call. */
export function createAnalystTools(deps: AnalystToolDeps, state: SessionState): ToolRegistry {
  return createToolRegistry([
    ...runbookTools(deps, state),
    ...schemaTools(deps, state),
    ...queryTools(deps, state),
  ]);
}

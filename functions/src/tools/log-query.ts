import { z } from "zod";
import { ConfigError } from "../domain/errors.js";
import type { LogWarehouse } from "../ports/log-warehouse.js";
import { MAX_SQL_CHARS } from "../sql/guard.js";
import type { RunbookLibrary } from "../sql/runbooks.js";
import { LOG_QUERY_LIMITS, presentParams, readLogPage, runbookParamShape } from "./log-pages.js";
import { type AnyTool, defineTool } from "./port.js";

export interface LogQueryToolOptions {
  warehouse: LogWarehouse;
  runbooks: RunbookLibrary;
  /** Serialized size of one page handed back; a larger page is re-read with fewer rows. */
  maxPageBytes?: number;
  /** Longest string kept in a cell; longer ones are cut and marked. */
  maxCellChars?: number;
}

export { LOG_QUERY_LIMITS };

function firstSentence(text: string): string {
  const end = text.indexOf(". ");
  return end === -1 ? text : text.slice(0, end + 1);
}

function buildInput(runbooks: RunbookLibrary) {
  const names = runbooks.names();
  const paramShape = runbookParamShape(runbooks);
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

export function createLogQueryTool(options: LogQueryToolOptions): AnyTool {
  const { warehouse, runbooks } = options;
  const limits = {
    maxPageBytes: options.maxPageBytes ?? LOG_QUERY_LIMITS.maxPageBytes,
    maxCellChars: options.maxCellChars ?? LOG_QUERY_LIMITS.maxCellChars,
  };
  return defineTool({
    name: "log_query",
    readOnly: true,
    description: describeTool(runbooks, warehouse.dialect),
    input: buildInput(runbooks),
    run: (input, ctx) =>
      readLogPage(
        { warehouse, runbooks, limits },
        {
          ...(input.runbook ? { runbook: input.runbook } : {}),
          ...(input.sql ? { sql: input.sql } : {}),
          params: input.params ?? {},
          ...(input.pageSize !== undefined ? { pageSize: input.pageSize } : {}),
          ...(input.pageToken ? { pageToken: input.pageToken } : {}),
          labels: { investigation: ctx.investigationId },
        },
        ctx,
      ),
  });
}

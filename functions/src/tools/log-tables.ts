import { z } from "zod";
import type { JsonObject } from "../domain/json.js";
import type { LogWarehouse } from "../ports/log-warehouse.js";
import { type AnyTool, defineTool, type ToolOutput } from "./port.js";

/**
 * Schema lookup for an agent: without a table, every table with its description and
 * top-level columns; with one, every column and nested field as a dotted path with its
 * type, so SQL can name protopayload_auditlog.authenticationInfo.principalEmail exactly.
 * Shared by `log_tables` and the log-analysis sub-agent's schema tools.
 */
export async function describeLogTables(warehouse: LogWarehouse, name?: string): Promise<ToolOutput> {
  if (name) {
    const table = await warehouse.describeTable(name);
    return {
      ok: true,
      summary: `${table.name}: ${table.columns.length} columns and nested fields. ${table.description}`,
      data: {
        name: table.name,
        description: table.description,
        columns: table.columns.map(
          (c): JsonObject =>
            c.description
              ? { name: c.name, type: c.type, description: c.description }
              : { name: c.name, type: c.type },
        ),
      },
    };
  }
  const tables = await warehouse.listTables();
  return {
    ok: true,
    summary: `${tables.length} log tables (${warehouse.dialect}): ${tables.map((t) => t.name).join(", ")}.`,
    data: {
      dialect: warehouse.dialect,
      tables: tables.map((t) => ({
        name: t.name,
        description: t.description,
        topLevelColumns: t.columns.filter((c) => !c.name.includes(".")).map((c) => `${c.name} ${c.type}`),
      })),
    },
  };
}

/**
 * Each table's time span (earliest and latest timestamp, rows), one guarded query per
 * table: what the planner reads before it plans, so a finding outside the logs is said to
 * be, not searched for. A table that fails to answer is left out rather than guessed.
 */
export async function logCoverage(warehouse: LogWarehouse): Promise<ToolOutput> {
  const tables = await warehouse.listTables();
  const spans: JsonObject[] = [];
  for (const t of tables) {
    try {
      const result = await warehouse.query({
        sql: `SELECT MIN(timestamp) AS first_seen, MAX(timestamp) AS last_seen, COUNT(*) AS row_count FROM ${t.name}`,
      });
      const row = result.rows[0] ?? {};
      const iso = (v: unknown) =>
        typeof v === "string" && v
          ? new Date(v.includes("T") ? v : `${v.replace(" ", "T")}Z`).toISOString()
          : undefined;
      const first = iso(row.first_seen);
      const last = iso(row.last_seen);
      spans.push({
        table: t.name,
        rows: Number(row.row_count ?? 0),
        ...(first ? { first } : {}),
        ...(last ? { last } : {}),
      });
    } catch {
      // An unreadable table says nothing about its span.
    }
  }
  return {
    ok: true,
    summary: `time span of ${spans.length} log table(s): ${spans
      .map((s) => `${s.table} ${s.first ?? "empty"}…${s.last ?? ""}`)
      .join("; ")}`,
    data: { coverage: spans },
  };
}

export function createLogTablesTool(warehouse: LogWarehouse): AnyTool {
  return defineTool({
    name: "log_tables",
    readOnly: true,
    description:
      "List the exported log tables and what each holds, or (with table) every column and nested field of one table as dotted paths with types, or (with coverage) the time span each table covers. Use before writing SQL for log_query.",
    input: z.object({
      table: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("A table name, e.g. compute_googleapis_com_vpc_flows; omit to list tables."),
      coverage: z
        .boolean()
        .optional()
        .describe("true: each table's earliest and latest timestamp and row count instead of the schema."),
    }),
    run: (input) => (input.coverage ? logCoverage(warehouse) : describeLogTables(warehouse, input.table)),
  });
}

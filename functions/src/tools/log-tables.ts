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

export function createLogTablesTool(warehouse: LogWarehouse): AnyTool {
  return defineTool({
    name: "log_tables",
    readOnly: true,
    description:
      "List the exported log tables and what each holds, or (with table) every column and nested field of one table as dotted paths with types. Use before writing SQL for log_query.",
    input: z.object({
      table: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("A table name, e.g. compute_googleapis_com_vpc_flows; omit to list tables."),
    }),
    run: (input) => describeLogTables(warehouse, input.table),
  });
}

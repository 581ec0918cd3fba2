import { openDuckDbWarehouse } from "../adapters/duckdb/warehouse.js";
import { StixThreatIntel } from "../adapters/stix/threat-intel.js";
import type { Config } from "../config/config.js";
import { ConfigError } from "../domain/errors.js";
import type { Logger } from "../platform/logger.js";
import type { LogWarehouse } from "../ports/log-warehouse.js";
import { loadRunbooks } from "../sql/runbooks.js";
import { createLogQueryTool } from "../tools/log-query.js";
import { createLogTablesTool } from "../tools/log-tables.js";
import type { AnyTool } from "../tools/port.js";
import { createToolRegistry } from "../tools/registry.js";
import { createThreatIntelLookupTool } from "../tools/threat-intel-lookup.js";
import type { ToolCatalog } from "../tools/toolbox.js";

export interface BuiltCatalog {
  catalog: ToolCatalog;
  tables: { name: string; description: string }[];
  warehouse?: LogWarehouse;
}

/**
 * The tool registry for this process: which tools exist depends on which data sources
 * are configured, so a plan can never name a tool whose source is missing.
 */
export async function buildToolCatalog(
  config: Config,
  _env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<BuiltCatalog> {
  const tools: AnyTool[] = [];
  let warehouse: LogWarehouse | undefined;
  if (config.logs.warehouse === "bigquery") {
    throw new ConfigError(
      "FERRET_LOG_WAREHOUSE=bigquery: the BigQuery adapter is not part of this build yet; use duckdb",
    );
  }
  if (config.logs.duckdbDir) {
    warehouse = await openDuckDbWarehouse({
      dir: config.logs.duckdbDir,
      maxRows: config.logs.maxRows,
      defaultPageSize: Math.min(config.logs.pageSize, 100),
      timeoutMs: config.logs.queryTimeoutMs,
    });
    tools.push(createLogQueryTool({ warehouse, runbooks: loadRunbooks() }), createLogTablesTool(warehouse));
  } else {
    logger.warn("no log warehouse configured (FERRET_DUCKDB_DIR); log tools are unavailable");
  }
  if (config.intel.stixBundle) {
    tools.push(createThreatIntelLookupTool(StixThreatIntel.fromFile(config.intel.stixBundle)));
  } else {
    logger.warn("no threat intel configured (FERRET_STIX_BUNDLE); the intel tool is unavailable");
  }
  const tables = warehouse
    ? (await warehouse.listTables()).map((t) => ({ name: t.name, description: t.description }))
    : [];
  return { catalog: createToolRegistry(tools), tables, ...(warehouse ? { warehouse } : {}) };
}

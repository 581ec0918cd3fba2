import { openDuckDbWarehouse } from "../../../functions/src/adapters/duckdb/warehouse.js";
import { logWarehouseContract, type WarehouseScenario } from "../../contracts/log-warehouse.js";

const LOGS = "examples/scenarios/cryptomining/logs";
const ACTIVITY = "cloudaudit_googleapis_com_activity";
const BINDINGS = "protopayload_auditlog.servicedata_v1_iam.policyDelta.bindingDeltas";

/** The shared LogWarehouse suite over DuckDB, loaded with the cryptomining scenario's logs. */
logWarehouseContract({
  name: "DuckDB over the cryptomining scenario's JSONL files",
  dialect: "duckdb",
  async open(scenario: WarehouseScenario) {
    const warehouse = await openDuckDbWarehouse({
      dir: LOGS,
      project: "acme-analytics-prod",
      maxRows: scenario === "capped" ? 3 : 50,
      timeoutMs: scenario === "timeout" ? 150 : 5_000,
    });
    // Counted where the adapter hands a statement to the engine, past the guard and the page cache.
    let ran = 0;
    // biome-ignore lint/complexity/useLiteralKeys: execute is private; the count is taken at the engine's door
    const execute = warehouse["execute"].bind(warehouse);
    // biome-ignore lint/complexity/useLiteralKeys: as above
    warehouse["execute"] = (...args: Parameters<typeof execute>) => {
      ran += 1;
      return execute(...args);
    };
    return { warehouse, statementsRun: () => ran };
  },
  facts: {
    tables: [
      ACTIVITY,
      "cloudaudit_googleapis_com_data_access",
      "cloudaudit_googleapis_com_system_event",
      "compute_googleapis_com_vpc_flows",
      "dns_googleapis_com_dns_queries",
      "syslog",
    ],
    qualifiedTable: "logs.syslog",
    nested: {
      table: ACTIVITY,
      column: "protopayload_auditlog.authenticationInfo.principalEmail",
      type: "STRING",
    },
    repeated: { table: ACTIVITY, column: `${BINDINGS}.member`, array: BINDINGS },
    paged: {
      request: { sql: "SELECT insertId FROM syslog ORDER BY timestamp, insertId LIMIT 5", pageSize: 2 },
      totalRows: 5,
    },
    capped: { sql: "SELECT insertId FROM syslog ORDER BY insertId", maxRows: 3 },
    failing: { sql: "SELECT no_such_column FROM syslog", says: /no_such_column/ },
    slow: {
      sql: "SELECT COUNT(*) AS n FROM syslog a, syslog b, syslog c WHERE a.insertId < b.insertId AND b.insertId < c.insertId",
    },
  },
});

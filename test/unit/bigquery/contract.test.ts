import { after, afterEach } from "node:test";
import { logWarehouseContract, type WarehouseScenario } from "../../contracts/log-warehouse.js";
import {
  CANCEL,
  dryRun,
  JOB,
  JOBS,
  jobAsCreated,
  jobBodies,
  RESULTS,
  results,
  SYSLOG_PARAMS,
  SYSLOG_SQL,
  startJob,
  startWarehouse,
  tableList,
} from "./exchanges.js";
import { type Exchange, errorReply, fixture, type ReplayServer } from "./replay-server.js";

process.env.METADATA_SERVER_DETECTION = "none";
after(() => {
  delete process.env.METADATA_SERVER_DETECTION;
});

const servers: ReplayServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const tables: Exchange = {
  method: "GET",
  path: /^acme-logs\/datasets\/scc_logs\/tables\/[a-z_]+$/,
  reply: (req) => {
    const table = req.path.split("/").at(-1);
    const file = { syslog: "table-syslog.json", app_audit: "table-app-audit.json" }[table ?? ""];
    return { body: fixture(file ?? "table-activity.json") };
  },
  repeat: true,
};
const jobLookup: Exchange = { method: "GET", path: JOB, reply: (_req, history) => jobAsCreated(history) };

/** The REST exchanges each scenario needs, from the recorded responses in test/fixtures/bigquery. */
const SCRIPTS: Record<WarehouseScenario, Exchange[]> = {
  tables: [...tableList, tables],
  refusals: [...tableList],
  paged: [
    ...tableList,
    dryRun(),
    startJob,
    results("results-paging-1.json"),
    jobLookup,
    results("results-paging-2.json"),
    jobLookup,
    results("results-paging-3.json"),
  ],
  capped: [
    ...tableList,
    dryRun(),
    startJob,
    results("results-over-cap.json"),
    results("results-over-cap-rows-3.json"),
  ],
  "engine-error": [...tableList, { method: "POST", path: JOBS, reply: errorReply("invalid-query.json") }],
  // The dry run prices the statement (it runs nothing); the job is never started.
  aborted: [...tableList, dryRun(), dryRun()],
  timeout: [
    ...tableList,
    dryRun(),
    startJob,
    { method: "GET", path: RESULTS, reply: { body: fixture("results-pending.json") }, repeat: true },
    { method: "POST", path: CANCEL, reply: { body: { kind: "bigquery#jobCancelResponse" } } },
  ],
};

/** The shared LogWarehouse suite over BigQuery, against the replay server of recorded REST answers. */
logWarehouseContract({
  name: "BigQuery against its replay server",
  dialect: "bigquery",
  async open(scenario) {
    const { server, warehouse } = await startWarehouse({
      ...(scenario === "capped" ? { maxRows: 3 } : {}),
      ...(scenario === "timeout" ? { timeoutMs: 100, clientGraceMs: 100, pollWaitMs: 20 } : {}),
    });
    servers.push(server);
    server.expect(...SCRIPTS[scenario]);
    return {
      warehouse,
      statementsRun: () => jobBodies(server).filter((job) => job.configuration.dryRun !== true).length,
    };
  },
  facts: {
    tables: ["app_audit", "cloudaudit_googleapis_com_activity", "syslog"],
    qualifiedTable: "scc_logs.syslog",
    nested: {
      table: "cloudaudit_googleapis_com_activity",
      column: "protopayload_auditlog.authenticationInfo.principalEmail",
      type: "STRING",
    },
    repeated: {
      table: "cloudaudit_googleapis_com_activity",
      column: "protopayload_auditlog.authorizationInfo.permission",
      array: "protopayload_auditlog.authorizationInfo",
    },
    paged: { request: { sql: SYSLOG_SQL, params: SYSLOG_PARAMS, pageSize: 2 }, totalRows: 5 },
    capped: { sql: "SELECT textPayload FROM syslog", maxRows: 3 },
    failing: { sql: "SELECT principal_email FROM syslog", says: /Unrecognized name: principal_email/ },
    slow: { sql: "SELECT textPayload FROM syslog" },
  },
});

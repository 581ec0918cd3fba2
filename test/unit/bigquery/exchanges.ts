import {
  BigQueryLogWarehouse,
  type BigQueryWarehouseOptions,
} from "../../../functions/src/adapters/bigquery/warehouse.js";
import { type Exchange, fixture, type Recorded, ReplayServer, staticTokenAuth } from "./replay-server.js";

/*
 * The REST exchanges the BigQuery tests script on the replay server, shared by the adapter's
 * own tests (warehouse.test.ts) and the LogWarehouse contract (contract.test.ts).
 */

export const GIB = 1024 ** 3;
/** The library names each job ferret_ + a random UUID (jobPrefix). */
export const JOB_ID = /ferret_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
export const TABLES = "acme-logs/datasets/scc_logs/tables";
export const JOBS = "acme-sec/jobs";
export const JOB = new RegExp(`^${JOBS}/${JOB_ID.source}$`);
export const RESULTS = new RegExp(`^acme-sec/queries/${JOB_ID.source}$`);
export const CANCEL = new RegExp(`^${JOBS}/${JOB_ID.source}/cancel$`);
/** A request as "METHOD path" with the generated job id written <job>. */
export const shape = (r: Recorded) => `${r.method} ${r.path.replace(JOB_ID, "<job>")}`;

/** A warehouse on the replay server, set up as the tests' project: logs in acme-logs, jobs in acme-sec. */
export async function startWarehouse(
  options: Partial<BigQueryWarehouseOptions> = {},
): Promise<{ server: ReplayServer; warehouse: BigQueryLogWarehouse }> {
  const server = await ReplayServer.start();
  const warehouse = new BigQueryLogWarehouse({
    dataProject: "acme-logs",
    dataset: "scc_logs",
    jobProject: "acme-sec",
    maximumBytesBilled: 10 * GIB,
    maxRows: 10,
    timeoutMs: 2_000,
    pollWaitMs: 50,
    apiEndpoint: server.url,
    authClient: staticTokenAuth(),
    maxRetries: 0,
    ...options,
  });
  return { server, warehouse };
}

export const tableList: Exchange[] = [
  {
    method: "GET",
    path: TABLES,
    reply: (req) => ({
      body: fixture(req.query.pageToken ? "tables-list-page2.json" : "tables-list-page1.json"),
    }),
    repeat: true,
  },
];
export const dryRun = (name = "job-dry-run.json"): Exchange => ({
  method: "POST",
  path: JOBS,
  reply: { body: fixture(name) },
});
export const startJob: Exchange = {
  method: "POST",
  path: JOBS,
  reply: { body: fixture("job-running.json") },
};
export const results = (name: string): Exchange => ({
  method: "GET",
  path: RESULTS,
  reply: { body: fixture(name) },
});

export function jobBodies(
  server: ReplayServer,
): Array<{ configuration: Record<string, unknown> } & Recorded> {
  return server.requests
    .filter((r) => r.method === "POST" && r.path === JOBS)
    .map((r) => ({
      ...r,
      configuration: (r.body as { configuration: Record<string, unknown> }).configuration,
    }));
}

/** A jobs.get answer describing the job exactly as the adapter created it. */
export function jobAsCreated(history: readonly Recorded[], overrides: Record<string, unknown> = {}) {
  const created = history.find(
    (r) =>
      r.method === "POST" &&
      r.path === JOBS &&
      !(r.body as { configuration: { dryRun?: boolean } }).configuration.dryRun,
  );
  const body = created?.body as {
    jobReference: { jobId: string };
    configuration: { query: Record<string, unknown>; labels: unknown };
  };
  return {
    body: {
      kind: "bigquery#job",
      jobReference: { projectId: "acme-sec", jobId: body.jobReference.jobId, location: "EU" },
      configuration: {
        jobType: "QUERY",
        labels: body.configuration.labels,
        query: { ...body.configuration.query, ...overrides },
      },
      status: { state: "DONE" },
    },
  };
}

export const SYSLOG_SQL =
  "SELECT timestamp AS event_time, textPayload AS principal FROM syslog " +
  "WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP) " +
  "AND resource.labels.instance_id = @instance AND textPayload LIKE @pattern AND @strict AND LENGTH(textPayload) > @ratio " +
  "ORDER BY event_time";
export const SYSLOG_PARAMS = {
  start: "2025-06-11T00:14:27.000Z",
  end: "2025-06-11T04:14:27.000Z",
  instance: 4_815_162_342,
  pattern: "%sshd%",
  strict: true,
  ratio: 0.5,
};

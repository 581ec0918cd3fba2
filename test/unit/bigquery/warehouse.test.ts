import assert from "node:assert/strict";
import { after, afterEach, describe, it } from "node:test";
import { ScanCapExceededError } from "../../../functions/src/adapters/bigquery/errors.js";
import {
  BigQueryLogWarehouse,
  type BigQueryWarehouseOptions,
} from "../../../functions/src/adapters/bigquery/warehouse.js";
import {
  ConfigError,
  DeadlineExceededError,
  type FerretError,
  InvalidInputError,
  NotFoundError,
  SqlRefusedError,
  StorageError,
} from "../../../functions/src/domain/errors.js";
import { LOG_TABLES } from "../../../functions/src/sql/log-schema.js";
import { QueryFailedError, QueryTimeoutError } from "../../../functions/src/sql/query-errors.js";
import {
  CANCEL,
  dryRun,
  GIB,
  JOB,
  JOB_ID,
  JOBS,
  jobAsCreated,
  jobBodies,
  RESULTS,
  results,
  SYSLOG_PARAMS,
  SYSLOG_SQL,
  shape,
  startJob,
  startWarehouse,
  TABLES,
  tableList,
} from "./exchanges.js";
import { type Exchange, errorReply, fixture, ReplayServer, staticTokenAuth } from "./replay-server.js";

process.env.METADATA_SERVER_DETECTION = "none";

const servers: ReplayServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function setup(options: Partial<BigQueryWarehouseOptions> = {}) {
  const started = await startWarehouse(options);
  servers.push(started.server);
  return started;
}

describe("BigQueryLogWarehouse tables", () => {
  it("lists the dataset's queryable tables across pages, described with the log schema's words", async () => {
    const { server, warehouse } = await setup();
    server.expect(...tableList, {
      method: "GET",
      path: /^acme-logs\/datasets\/scc_logs\/tables\/[a-z_]+$/,
      reply: (req) => {
        const table = req.path.split("/").at(-1);
        const file = { syslog: "table-syslog.json", app_audit: "table-app-audit.json" }[table ?? ""];
        return { body: fixture(file ?? "table-activity.json") };
      },
      repeat: true,
    });
    const tables = await warehouse.listTables();
    assert.deepEqual(
      tables.map((t) => t.name),
      ["app_audit", "cloudaudit_googleapis_com_activity", "syslog"],
      "the EXTERNAL table is not offered",
    );
    const byName = new Map(tables.map((t) => [t.name, t]));
    const schemaSyslog = LOG_TABLES.find((t) => t.name === "syslog")!;
    assert.equal(byName.get("syslog")!.description, schemaSyslog.description);
    assert.equal(
      byName.get("app_audit")!.description,
      "Audit trail of the billing application, exported by its own sink",
    );

    const activity = new Map(
      byName.get("cloudaudit_googleapis_com_activity")!.columns.map((c) => [c.name, c]),
    );
    assert.deepEqual(activity.get("protopayload_auditlog.authenticationInfo.principalEmail"), {
      name: "protopayload_auditlog.authenticationInfo.principalEmail",
      type: "STRING",
      description: "who made the call (user or service account)",
    });
    assert.equal(activity.get("protopayload_auditlog.status.code")?.type, "INT64");
    assert.equal(activity.get("protopayload_auditlog.authorizationInfo")?.type, "ARRAY<STRUCT>");
    assert.equal(activity.get("protopayload_auditlog")?.type, "STRUCT");
    assert.equal(activity.get("protopayload_auditlog.authorizationInfo.granted")?.type, "BOOL");
    assert.match(
      activity.get("protopayload_auditlog.authorizationInfo.permission")?.description ?? "",
      /inside ARRAY protopayload_auditlog\.authorizationInfo: UNNEST it/,
    );
    const app = new Map(byName.get("app_audit")!.columns.map((c) => [c.name, c]));
    assert.deepEqual(app.get("actor"), { name: "actor", type: "STRING", description: "user who acted" });
    assert.equal(app.get("tags")?.type, "ARRAY<STRING>");

    // The dataset lives in acme-logs, not in the project that runs jobs.
    const listCalls = server.requests.filter((r) => r.path === TABLES);
    assert.deepEqual(
      listCalls.map((r) => r.query.pageToken),
      [undefined, "cloudaudit_googleapis_com_activity"],
    );
    assert.ok(server.requests.every((r) => r.authorization === "Bearer test-token"));
    assert.deepEqual(server.unexpected, []);

    // Cached: a second listing asks BigQuery nothing.
    const before = server.requests.length;
    await warehouse.listTables();
    await warehouse.describeTable("scc_logs.syslog");
    assert.equal(server.requests.length, before);
  });
});

describe("BigQueryLogWarehouse queries", () => {
  it("guards, dry-runs, then runs the job with the cap, timeout, labels and typed parameters", async () => {
    const { server, warehouse } = await setup({ labels: { deployment: "Prod EU" } });
    server.expect(
      ...tableList,
      dryRun(),
      startJob,
      results("results-pending.json"),
      results("results-paging-1.json"),
    );
    const result = await warehouse.query({
      sql: SYSLOG_SQL,
      params: SYSLOG_PARAMS,
      pageSize: 2,
      labels: { runbook: "host_syslog", investigation: "inv-0123456789abcdef01234567" },
    });

    const order = server.requests.filter((r) => r.path !== TABLES).map(shape);
    const read = "GET acme-sec/queries/<job>";
    assert.deepEqual(order, [`POST ${JOBS}`, `POST ${JOBS}`, read, read]);
    const [dry, real] = jobBodies(server);
    assert.equal(dry!.configuration.dryRun, true, "the first job is the dry run");
    assert.equal(real!.configuration.dryRun, undefined, "the second job runs");
    assert.match(
      (real!.body as { jobReference: { jobId: string; projectId: string } }).jobReference.jobId,
      new RegExp(`^${JOB_ID.source}$`),
    );
    assert.equal((real!.body as { jobReference: { projectId: string } }).jobReference.projectId, "acme-sec");

    for (const job of [dry!, real!]) {
      assert.equal(job.configuration.jobTimeoutMs, "2000");
      assert.deepEqual(job.configuration.labels, {
        app: "ferret",
        deployment: "prod_eu",
        runbook: "host_syslog",
        investigation: "inv-0123456789abcdef01234567",
      });
      const query = job.configuration.query as Record<string, unknown>;
      assert.equal(query.maximumBytesBilled, String(10 * GIB));
      assert.equal(query.useLegacySql, false);
      assert.equal(query.parameterMode, "named", "the library spells the REST enum in lower case");
      assert.deepEqual(query.queryParameters, [
        {
          name: "end",
          parameterType: { type: "STRING" },
          parameterValue: { value: "2025-06-11T04:14:27.000Z" },
        },
        { name: "instance", parameterType: { type: "INT64" }, parameterValue: { value: "4815162342" } },
        { name: "pattern", parameterType: { type: "STRING" }, parameterValue: { value: "%sshd%" } },
        { name: "ratio", parameterType: { type: "FLOAT64" }, parameterValue: { value: "0.5" } },
        {
          name: "start",
          parameterType: { type: "STRING" },
          parameterValue: { value: "2025-06-11T00:14:27.000Z" },
        },
        { name: "strict", parameterType: { type: "BOOL" }, parameterValue: { value: "true" } },
      ]);
      assert.match(String(query.query), /FROM `acme-logs\.scc_logs\.syslog` WHERE/);
      assert.match(String(query.query), / LIMIT 11$/, "maxRows + 1 tells a full result from a cut one");
    }
    assert.equal(
      (dry!.configuration.query as { query: string }).query,
      (real!.configuration.query as { query: string }).query,
      "the dry run priced exactly the statement that runs",
    );

    const reads = server.requests.filter((r) => RESULTS.test(r.path));
    for (const read of reads) {
      assert.equal(read.query.location, "EU", "the location BigQuery chose for the job");
      assert.equal(read.query["formatOptions.useInt64Timestamp"], "true");
      assert.equal(read.query.startIndex, "0");
      assert.equal(read.query.maxResults, "2");
      assert.equal(read.query.skipParsing, undefined, "a client-side switch, not an API parameter");
    }

    assert.deepEqual(result.columns, ["event_time", "principal"]);
    assert.deepEqual(result.rows, [
      { event_time: "2025-06-11T02:14:27.000Z", principal: "alice@example.com" },
      { event_time: "2025-06-11T02:15:27.000Z", principal: "bob@example.com" },
    ]);
    assert.equal(result.totalRows, 5);
    assert.equal(result.truncated, false);
    assert.equal(result.bytesProcessed, 3_145_728);
    assert.equal(result.executedSql, (real!.configuration.query as { query: string }).query);
    assert.ok(result.nextPageToken);
    assert.deepEqual(server.unexpected, []);
    assert.deepEqual(server.pending(), []);
  });

  it("pages from the finished job without running the query again", async () => {
    const { server, warehouse } = await setup();
    server.expect(...tableList, dryRun(), startJob, results("results-paging-1.json"));
    const request = { sql: SYSLOG_SQL, params: SYSLOG_PARAMS, pageSize: 2 };
    const first = await warehouse.query(request);

    server.expect(
      { method: "GET", path: JOB, reply: (_req, history) => jobAsCreated(history) },
      results("results-paging-2.json"),
    );
    const second = await warehouse.query({ ...request, pageToken: first.nextPageToken! });
    assert.deepEqual(
      second.rows.map((r) => r.principal),
      ["eve@example.com", "trent@example.com"],
    );
    const read2 = server.requests.at(-1)!;
    assert.equal(read2.query.startIndex, "2");
    assert.equal(read2.query.maxResults, "2");
    assert.equal(read2.query.location, "EU");

    server.expect(
      { method: "GET", path: JOB, reply: (_req, history) => jobAsCreated(history) },
      results("results-paging-3.json"),
    );
    const third = await warehouse.query({ ...request, pageToken: second.nextPageToken! });
    assert.deepEqual(third.rows, [
      { event_time: "2025-06-11T02:18:27.000Z", principal: "mallory@example.com" },
    ]);
    assert.equal(third.nextPageToken, undefined, "the last page has no token");
    assert.equal(server.requests.at(-1)!.query.startIndex, "4");

    assert.equal(jobBodies(server).length, 2, "one dry run and one job for three pages");
    assert.deepEqual(server.unexpected, []);
  });

  it("refuses a page token whose job ran another statement", async () => {
    const { server, warehouse } = await setup();
    server.expect(...tableList, dryRun(), startJob, results("results-paging-1.json"));
    const request = { sql: SYSLOG_SQL, params: SYSLOG_PARAMS, pageSize: 2 };
    const first = await warehouse.query(request);
    server.expect({
      method: "GET",
      path: JOB,
      reply: (_req, history) => jobAsCreated(history, { query: "SELECT * FROM `acme-logs.other.secrets`" }),
    });
    await assert.rejects(warehouse.query({ ...request, pageToken: first.nextPageToken! }), InvalidInputError);
    assert.equal(
      server.requests.filter((r) => RESULTS.test(r.path)).length,
      1,
      "no result of the foreign job was read",
    );
  });

  it("says when the result behind a page token has expired", async () => {
    const { server, warehouse } = await setup();
    server.expect(...tableList, dryRun(), startJob, results("results-paging-1.json"));
    const request = { sql: SYSLOG_SQL, params: SYSLOG_PARAMS, pageSize: 2 };
    const first = await warehouse.query(request);
    server.expect({ method: "GET", path: JOB, reply: errorReply("not-found.json") });
    await assert.rejects(
      warehouse.query({ ...request, pageToken: first.nextPageToken! }),
      /is gone .* run the query again/,
    );
  });

  it("refuses when the dry run says the scan exceeds maximumBytesBilled, and runs nothing", async () => {
    const { server, warehouse } = await setup();
    server.expect(...tableList, dryRun("job-dry-run-over-cap.json"));
    await assert.rejects(warehouse.query({ sql: SYSLOG_SQL, params: SYSLOG_PARAMS }), (error: unknown) => {
      assert.ok(error instanceof ScanCapExceededError);
      assert.equal(error.code, "budget_exhausted");
      assert.equal(error.retryable, false);
      assert.deepEqual(error.details, { bytes: 20 * GIB, cap: 10 * GIB });
      assert.match(error.message, /scan 20\.0 GiB, above the 10\.0 GiB cap/);
      return true;
    });
    assert.equal(jobBodies(server).length, 1, "only the dry run was sent");
    assert.equal(server.requests.filter((r) => RESULTS.test(r.path)).length, 0);
  });

  /** The recorded dry run with the engine's reading of the statement replaced. */
  const dryRunReading = (query: Record<string, unknown>): Exchange => {
    const body = structuredClone(fixture("job-dry-run.json")) as {
      statistics: { query: Record<string, unknown> };
    };
    body.statistics.query = { ...body.statistics.query, ...query };
    if (query.statementType === undefined) delete body.statistics.query.statementType;
    return { method: "POST", path: JOBS, reply: { body } };
  };

  it("runs nothing the dry run reads as anything but a SELECT, whatever the lexer made of it", async () => {
    for (const statementType of ["INSERT", "SCRIPT", "CREATE_TABLE_AS_SELECT"]) {
      const { server, warehouse } = await setup();
      server.expect(...tableList, dryRunReading({ statementType }));
      await assert.rejects(
        warehouse.query({ sql: SYSLOG_SQL, params: SYSLOG_PARAMS }),
        (error: unknown) =>
          error instanceof SqlRefusedError && error.message.includes(`a ${statementType} statement`),
      );
      assert.equal(jobBodies(server).length, 1, "only the dry run was sent");
    }
  });

  it("runs nothing the dry run resolves to a table outside the sink dataset", async () => {
    const outside = [
      { projectId: "acme-logs", datasetId: "billing", tableId: "invoices" },
      { projectId: "other-project", datasetId: "scc_logs", tableId: "syslog" },
      { projectId: "acme-logs", datasetId: "scc_logs", tableId: "archive_export" },
    ];
    for (const table of outside) {
      const { server, warehouse } = await setup();
      server.expect(
        ...tableList,
        dryRunReading({
          statementType: "SELECT",
          referencedTables: [{ projectId: "acme-logs", datasetId: "scc_logs", tableId: "syslog" }, table],
        }),
      );
      await assert.rejects(
        warehouse.query({ sql: SYSLOG_SQL, params: SYSLOG_PARAMS }),
        (error: unknown) => error instanceof SqlRefusedError && error.message.includes(table.tableId),
      );
      assert.equal(jobBodies(server).length, 1, "only the dry run was sent");
    }
  });

  it("runs nothing when the dry run does not say what the statement is", async () => {
    const { server, warehouse } = await setup();
    server.expect(...tableList, dryRunReading({ statementType: undefined }));
    await assert.rejects(
      warehouse.query({ sql: SYSLOG_SQL, params: SYSLOG_PARAMS }),
      (error: unknown) => error instanceof StorageError && error.retryable === false,
    );
    assert.equal(jobBodies(server).length, 1);
  });

  it("refuses a table the dataset lists but does not offer (an EXTERNAL table) before any job is created", async () => {
    // The guard's other refusals are the LogWarehouse contract's (test/contracts).
    const { server, warehouse } = await setup();
    server.expect(...tableList);
    await assert.rejects(warehouse.query({ sql: "SELECT * FROM archive_export" }), SqlRefusedError);
    assert.equal(jobBodies(server).length, 0);
  });

  it("assembles a page BigQuery split in parts and converts every value to JSON", async () => {
    const { server, warehouse } = await setup();
    server.expect(
      ...tableList,
      dryRun(),
      startJob,
      results("results-part1.json"),
      results("results-part2.json"),
    );
    const result = await warehouse.query({ sql: "SELECT * FROM syslog", pageSize: 3 });
    const reads = server.requests.filter((r) => RESULTS.test(r.path));
    assert.deepEqual(
      reads.map((r) => [r.query.startIndex, r.query.pageToken, r.query.maxResults]),
      [
        ["0", undefined, "3"],
        [undefined, "BQ_PART_2", "1"],
      ],
    );
    assert.equal(result.totalRows, 3);
    assert.equal(result.nextPageToken, undefined);
    assert.deepEqual(result.rows, [
      {
        event_time: "2025-06-11T02:14:27.123Z",
        principal: "mallory@example.com",
        calls: 42,
        big_id: "9007199254740993",
        ratio: 0.25,
        odd: "NaN",
        granted: true,
        cost: 12.5,
        day: "2025-06-11",
        payload: { method: "SetIamPolicy", n: 1 },
        ports: [22, 3333],
        resource: { type: "gce_instance", labels: { zone: "europe-west1-b" } },
        bindings: [
          { role: "roles/owner", member: "user:mallory@example.com" },
          { role: "roles/viewer", member: null },
        ],
      },
      {
        event_time: "1969-12-31T23:59:59.998Z",
        principal: null,
        calls: -7,
        big_id: "-9007199254740993",
        ratio: 15_000_000_000,
        odd: "Infinity",
        granted: false,
        cost: "0.1234567890123456789",
        day: null,
        payload: null,
        ports: [],
        resource: null,
        bindings: [],
      },
      {
        event_time: "2025-06-11T02:15:27.000Z",
        principal: "ops@example.com",
        calls: 3,
        big_id: 1,
        ratio: 1,
        odd: 2,
        granted: true,
        cost: 7,
        day: "2025-06-11",
        payload: "plain",
        ports: [443],
        resource: { type: "gcs_bucket", labels: null },
        bindings: [],
      },
    ]);
  });

  it("never asks BigQuery for rows past the cap", async () => {
    // What the capped result says (truncated, no token, LIMIT cap+1) is the LogWarehouse contract's.
    const { server, warehouse } = await setup({ maxRows: 3 });
    server.expect(
      ...tableList,
      dryRun(),
      startJob,
      results("results-over-cap.json"),
      results("results-over-cap-rows-3.json"),
    );
    await warehouse.query({ sql: "SELECT textPayload FROM syslog", pageSize: 50 });
    const reads = server.requests.filter((r) => RESULTS.test(r.path));
    assert.deepEqual(
      reads.map((r) => r.query.maxResults),
      ["3", "1"],
    );
  });

  it("picks up its own job when a retried insert is answered 409", async () => {
    const { server, warehouse } = await setup();
    server.expect(
      ...tableList,
      dryRun(),
      { method: "POST", path: JOBS, reply: errorReply("duplicate-job.json") },
      {
        method: "GET",
        path: JOB,
        reply: { body: fixture("job-running.json") },
      },
      results("results-paging-1.json"),
    );
    const result = await warehouse.query({ sql: SYSLOG_SQL, params: SYSLOG_PARAMS, pageSize: 2 });
    assert.equal(result.rows.length, 2);
    const inserted = (jobBodies(server)[1]!.body as { jobReference: { jobId: string } }).jobReference.jobId;
    assert.equal(
      server.requests.find((r) => r.method === "GET" && r.path.startsWith(`${JOBS}/`))?.path,
      `${JOBS}/${inserted}`,
    );
  });

  it("stops waiting after the job's time budget and cancels the job", async () => {
    const { server, warehouse } = await setup({ timeoutMs: 100, clientGraceMs: 100, pollWaitMs: 20 });
    server.expect(
      ...tableList,
      dryRun(),
      startJob,
      { method: "GET", path: RESULTS, reply: { body: fixture("results-pending.json") }, repeat: true },
      {
        method: "POST",
        path: CANCEL,
        reply: { body: { kind: "bigquery#jobCancelResponse" } },
      },
    );
    await assert.rejects(warehouse.query({ sql: "SELECT textPayload FROM syslog" }), QueryTimeoutError);
    assert.match(server.requests.at(-1)?.path ?? "", CANCEL);
    assert.equal(server.requests.at(-1)?.query.location, "EU");
  });
});

describe("BigQueryLogWarehouse and the step's deadline", () => {
  /** The job never finishes; the step's signal fires while ferret waits on its second poll. */
  const pendingUntilAborted = (step: AbortController, reason?: unknown): Exchange => {
    let polls = 0;
    return {
      method: "GET",
      path: RESULTS,
      reply: () => {
        polls += 1;
        if (polls === 2) step.abort(reason);
        return { body: fixture("results-pending.json") };
      },
      repeat: true,
    };
  };
  const cancelled: Exchange = {
    method: "POST",
    path: CANCEL,
    reply: { body: { kind: "bigquery#jobCancelResponse" } },
  };

  it("cancels the running job when the step's signal fires, and throws the step's reason", async () => {
    const { server, warehouse } = await setup({ timeoutMs: 60_000, pollWaitMs: 20 });
    const step = new AbortController();
    const reason = new DeadlineExceededError("step deadline");
    server.expect(...tableList, dryRun(), startJob, pendingUntilAborted(step, reason), cancelled);
    const started = Date.now();
    await assert.rejects(
      warehouse.query({ sql: "SELECT textPayload FROM syslog", signal: step.signal }),
      (error: unknown) => error === reason,
    );
    assert.ok(Date.now() - started < 5_000, "did not wait for the job's own timeout");
    const cancels = server.requests.filter((r) => CANCEL.test(r.path));
    assert.equal(cancels.length, 1, "the job was cancelled, not left running");
    assert.equal(cancels[0]!.query.location, "EU");
  });

  it("starts no job when the signal fired during the dry run", async () => {
    const { server, warehouse } = await setup();
    const step = new AbortController();
    server.expect(...tableList, {
      method: "POST",
      path: JOBS,
      reply: () => {
        step.abort(new DeadlineExceededError("step deadline"));
        return { body: fixture("job-dry-run.json") };
      },
    });
    await assert.rejects(
      warehouse.query({ sql: "SELECT textPayload FROM syslog", signal: step.signal }),
      DeadlineExceededError,
    );
    assert.equal(jobBodies(server).length, 1, "only the dry run was sent");
  });

  it("a signal aborted without a ferret reason still cancels and says why", async () => {
    const { server, warehouse } = await setup({ timeoutMs: 60_000, pollWaitMs: 20 });
    const step = new AbortController();
    server.expect(...tableList, dryRun(), startJob, pendingUntilAborted(step), cancelled);
    await assert.rejects(
      warehouse.query({ sql: "SELECT textPayload FROM syslog", signal: step.signal }),
      (error: unknown) =>
        error instanceof DeadlineExceededError && /no BigQuery job is left running/.test(error.message),
    );
    assert.equal(server.requests.filter((r) => CANCEL.test(r.path)).length, 1);
  });
});

describe("BigQueryLogWarehouse error mapping", () => {
  const cases: Array<{ name: string; expect: new (...args: never[]) => FerretError; retryable: boolean }> = [
    { name: "rate-limit.json", expect: StorageError, retryable: true },
    { name: "quota.json", expect: StorageError, retryable: true },
    { name: "backend.json", expect: StorageError, retryable: true },
    { name: "invalid-query.json", expect: QueryFailedError, retryable: false },
    { name: "not-found.json", expect: NotFoundError, retryable: false },
    { name: "access-denied.json", expect: ConfigError, retryable: false },
    { name: "bytes-billed.json", expect: ScanCapExceededError, retryable: false },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.expect.name} (retryable: ${c.retryable})`, async () => {
      const { server, warehouse } = await setup();
      server.expect(...tableList, { method: "POST", path: JOBS, reply: errorReply(c.name) });
      await assert.rejects(warehouse.query({ sql: "SELECT textPayload FROM syslog" }), (error: unknown) => {
        assert.ok(error instanceof c.expect, `${error} is not ${c.expect.name}`);
        assert.equal((error as FerretError).retryable, c.retryable);
        return true;
      });
    });
  }

  it("a query that fails while running reports the engine's message, not retryable", async () => {
    const { server, warehouse } = await setup();
    server.expect(...tableList, dryRun(), {
      method: "POST",
      path: JOBS,
      reply: { body: fixture("job-done-with-error.json") },
    });
    await assert.rejects(warehouse.query({ sql: "SELECT textPayload FROM syslog" }), (error: unknown) => {
      assert.ok(error instanceof QueryFailedError);
      assert.match(error.message, /Unrecognized name: principal_email/);
      assert.equal(error.retryable, false);
      return true;
    });
  });

  it("a job BigQuery stopped at jobTimeoutMs is a timeout", async () => {
    const { server, warehouse } = await setup();
    server.expect(...tableList, dryRun(), startJob, {
      method: "GET",
      path: RESULTS,
      reply: errorReply("job-timed-out.json"),
    });
    await assert.rejects(warehouse.query({ sql: "SELECT textPayload FROM syslog" }), QueryTimeoutError);
  });

  it("a connection that fails before any answer is retryable", async () => {
    const probe = await ReplayServer.start();
    const url = probe.url;
    await probe.close();
    const warehouse = new BigQueryLogWarehouse({
      dataProject: "acme-logs",
      dataset: "scc_logs",
      maximumBytesBilled: GIB,
      apiEndpoint: url,
      authClient: staticTokenAuth(),
      maxRetries: 0,
    });
    await assert.rejects(warehouse.listTables(), (error: unknown) => {
      assert.ok(error instanceof StorageError);
      assert.equal(error.retryable, true);
      return true;
    });
  });

  it("refuses an invalid dataset name or cap at construction", () => {
    assert.throws(
      () => new BigQueryLogWarehouse({ dataProject: "p", dataset: "logs; DROP", maximumBytesBilled: GIB }),
      ConfigError,
    );
    assert.throws(
      () => new BigQueryLogWarehouse({ dataProject: "p", dataset: "logs", maximumBytesBilled: 0 }),
      ConfigError,
    );
  });
});

after(() => {
  delete process.env.METADATA_SERVER_DETECTION;
});

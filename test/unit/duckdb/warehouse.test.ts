import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import {
  type DuckDbLogWarehouse,
  openDuckDbWarehouse,
} from "../../../functions/src/adapters/duckdb/warehouse.js";
import { DeadlineExceededError, SqlRefusedError } from "../../../functions/src/domain/errors.js";
import { QueryTimeoutError } from "../../../functions/src/sql/query-errors.js";

const LOGS = "examples/scenarios/cryptomining/logs";
const WINDOW = { start: "2025-06-11T00:14:27Z", end: "2025-06-11T04:14:27Z" };

function lineCount(table: string): number {
  return readFileSync(`${LOGS}/${table}.jsonl`, "utf8").split("\n").filter(Boolean).length;
}

describe("DuckDbLogWarehouse over the cryptomining scenario", () => {
  let warehouse: DuckDbLogWarehouse;
  before(async () => {
    warehouse = await openDuckDbWarehouse({
      dir: LOGS,
      project: "acme-analytics-prod",
      maxRows: 50,
      timeoutMs: 5_000,
    });
  });
  after(async () => {
    await warehouse.close();
  });

  it("loads every log schema table with its description and every row", async () => {
    const tables = await warehouse.listTables();
    assert.deepEqual(
      tables.map((t) => t.name),
      [
        "cloudaudit_googleapis_com_activity",
        "cloudaudit_googleapis_com_data_access",
        "cloudaudit_googleapis_com_system_event",
        "cloudaudit_googleapis_com_policy",
        "compute_googleapis_com_vpc_flows",
        "dns_googleapis_com_dns_queries",
        "syslog",
        "requests",
      ],
    );
    assert.match(tables[4]!.description, /^VPC Flow Logs/);
    for (const table of [
      "syslog",
      "compute_googleapis_com_vpc_flows",
      "cloudaudit_googleapis_com_activity",
    ]) {
      const result = await warehouse.query({ sql: `SELECT COUNT(*) AS n FROM ${table}` });
      assert.deepEqual(result.rows, [{ n: lineCount(table) }], table);
    }
  });

  it("returns timestamps as ISO UTC, integers as numbers and structs as objects", async () => {
    const result = await warehouse.query({
      sql: `SELECT timestamp, jsonPayload.connection, CAST(jsonPayload.bytes_sent AS INT64) AS bytes, jsonPayload.dest_location
            FROM compute_googleapis_com_vpc_flows
            WHERE jsonPayload.connection.dest_ip = @ip AND jsonPayload.connection.dest_port = @port
            ORDER BY timestamp LIMIT 1`,
      params: { ip: "203.0.113.88", port: 3333 },
    });
    const row = result.rows[0]!;
    assert.match(String(row.timestamp), /^2025-06-11T02:2\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(row.connection, {
      src_ip: "10.128.0.12",
      src_port: 51744,
      dest_ip: "203.0.113.88",
      dest_port: 3333,
      protocol: 6,
    });
    assert.equal(typeof row.bytes, "number");
    assert.deepEqual(row.dest_location, {
      continent: "Europe",
      country: "nld",
      region: "North Holland",
      city: "Amsterdam",
      asn: 64512,
    });
    assert.equal(result.executedSql.includes("$ip"), true);
  });

  it("returns repeated records as arrays of objects", async () => {
    const result = await warehouse.query({
      sql: `SELECT protopayload_auditlog.authorizationInfo AS checks FROM cloudaudit_googleapis_com_activity
            WHERE protopayload_auditlog.methodName = 'SetIamPolicy' ORDER BY timestamp LIMIT 1`,
    });
    assert.deepEqual(result.rows[0]!.checks, [
      {
        resource: "projects/acme-analytics-prod",
        permission: "resourcemanager.projects.setIamPolicy",
        granted: true,
      },
    ]);
  });

  it("runs BigQuery UNNEST over repeated records", async () => {
    const result = await warehouse.query({
      sql: `SELECT d.member, d.role FROM cloudaudit_googleapis_com_activity,
              UNNEST(protopayload_auditlog.servicedata_v1_iam.policyDelta.bindingDeltas) AS d
            WHERE d.action = 'ADD' AND timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)`,
      params: WINDOW,
    });
    assert.ok(result.totalRows > 0);
    for (const row of result.rows) assert.match(String(row.member), /^serviceAccount:/);
  });

  it("pages through a result that are the rows of one unpaged read", async () => {
    // Paging, tokens and the cap as such are the LogWarehouse contract's (test/contracts).
    const sql = "SELECT insertId FROM syslog ORDER BY timestamp, insertId";
    const first = await warehouse.query({ sql, pageSize: 20 });
    const second = await warehouse.query({ sql, pageSize: 20, pageToken: first.nextPageToken });
    const third = await warehouse.query({ sql, pageSize: 20, pageToken: second.nextPageToken });
    const all = await warehouse.query({ sql: `${sql} LIMIT 50`, pageSize: 50 });
    assert.deepEqual([...first.rows, ...second.rows, ...third.rows], all.rows);
  });

  it("refuses DuckDB's file-reading table functions before they reach the engine, and keeps the data", async () => {
    // Writes, several statements and foreign tables are the LogWarehouse contract's (test/contracts).
    await assert.rejects(warehouse.query({ sql: "SELECT * FROM read_csv('/etc/passwd')" }), SqlRefusedError);
    await assert.rejects(warehouse.query({ sql: "DROP TABLE syslog" }), SqlRefusedError);
    const count = await warehouse.query({ sql: "SELECT COUNT(*) AS n FROM syslog" });
    assert.deepEqual(count.rows, [{ n: lineCount("syslog") }]);
  });

  it("has no file or network access left even for a statement that skipped the guard", async () => {
    assert.equal(await warehouse.externalAccessEnabled(), false);
    // Straight to the engine, as a guard bypass would be.
    // biome-ignore lint/complexity/useLiteralKeys: execute is private; the test reaches past the guard on purpose
    const unguarded = warehouse["execute"].bind(warehouse);
    await assert.rejects(
      unguarded(`SELECT * FROM read_text('${LOGS}/syslog.jsonl')`, {}),
      /file system operations are disabled/,
    );
    await assert.rejects(unguarded("COPY (SELECT 1) TO '/tmp/ferret-exfil.csv'", {}), /disabled/);
    await assert.rejects(unguarded("SET enable_external_access = true", {}), /external access|locked/);
  });
});

describe("DuckDbLogWarehouse time budget", () => {
  it("interrupts a statement that runs past its timeout and stays usable", async () => {
    const warehouse = await openDuckDbWarehouse({ dir: LOGS, timeoutMs: 150 });
    try {
      const started = Date.now();
      await assert.rejects(
        warehouse.query({
          sql: "SELECT COUNT(*) AS n FROM syslog a, syslog b, syslog c WHERE a.insertId < b.insertId AND b.insertId < c.insertId",
        }),
        (error: unknown) => {
          assert.ok(error instanceof QueryTimeoutError);
          assert.equal(error.retryable, false);
          assert.match(error.message, /timed out after 150 ms/);
          return true;
        },
      );
      assert.ok(Date.now() - started < 5_000, "the interrupt took effect promptly");
      const after = await warehouse.query({ sql: "SELECT COUNT(*) AS n FROM syslog" });
      assert.deepEqual(after.rows, [{ n: lineCount("syslog") }]);
    } finally {
      await warehouse.close();
    }
  });

  it("stops a running statement when the step's deadline fires, and stays usable", async () => {
    const warehouse = await openDuckDbWarehouse({ dir: LOGS, timeoutMs: 60_000 });
    try {
      const step = new AbortController();
      const reason = new DeadlineExceededError("step deadline");
      setTimeout(() => step.abort(reason), 100);
      const started = Date.now();
      await assert.rejects(
        warehouse.query({
          sql: "SELECT COUNT(*) AS n FROM syslog a, syslog b, syslog c, syslog d WHERE a.insertId < b.insertId AND b.insertId < c.insertId AND c.insertId < d.insertId",
          signal: step.signal,
        }),
        (error: unknown) => error === reason,
      );
      assert.ok(Date.now() - started < 5_000, "the interrupt took effect promptly, not at the time budget");
      const after = await warehouse.query({ sql: "SELECT COUNT(*) AS n FROM syslog" });
      assert.deepEqual(after.rows, [{ n: lineCount("syslog") }]);
    } finally {
      await warehouse.close();
    }
  });

  it("refuses to open a directory that does not exist", async () => {
    await assert.rejects(
      openDuckDbWarehouse({ dir: "examples/scenarios/no-such-scenario/logs" }),
      /does not exist/,
    );
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DuckDBInstance } from "@duckdb/node-api";
import { SqlRefusedError } from "../../../functions/src/domain/errors.js";
import { guardSql, type SqlGuardOptions } from "../../../functions/src/sql/guard.js";
import { bigQueryTarget, duckDbTarget } from "../../../functions/src/sql/targets.js";

const scope = {
  allowedTables: ["cloudaudit_googleapis_com_activity", "syslog", "compute_googleapis_com_vpc_flows"],
  dataset: "logs",
  project: "acme-prod",
};
const duck: SqlGuardOptions = { ...scope, maxRows: 1000, target: duckDbTarget };
const bq: SqlGuardOptions = { ...scope, maxRows: 1000, target: bigQueryTarget(scope) };

/**
 * Hostile statements aimed at DuckDB's catalog views and table functions (none from the
 * earlier corpus). The first group names a catalog view outside the scope of a CTE of the
 * same name: before scope-aware resolution the guard accepted each of them.
 */
const OUT_OF_SCOPE: Array<[string, RegExp]> = [
  [
    "SELECT * FROM (WITH pg_settings AS (SELECT 1 AS x) SELECT x FROM pg_settings) a, pg_settings",
    /table "pg_settings" is not one of the log tables/,
  ],
  [
    "SELECT * FROM (WITH duckdb_tables AS (SELECT 1 AS x) SELECT x FROM duckdb_tables) a, duckdb_tables",
    /table "duckdb_tables" is not one of the log tables/,
  ],
  [
    "SELECT * FROM (WITH duckdb_databases AS (SELECT 1 AS x) SELECT x FROM duckdb_databases) a CROSS JOIN duckdb_databases",
    /table "duckdb_databases" is not one of the log tables/,
  ],
  [
    "SELECT * FROM syslog JOIN (WITH sqlite_master AS (SELECT 1 AS x) SELECT x FROM sqlite_master) s ON TRUE JOIN sqlite_master m ON TRUE",
    /table "sqlite_master" is not one of the log tables/,
  ],
  [
    "SELECT * FROM syslog WHERE insertId IN (WITH duckdb_settings AS (SELECT 'x' AS v) SELECT v FROM duckdb_settings) OR insertId IN (SELECT value FROM duckdb_settings)",
    /table "duckdb_settings" is not one of the log tables/,
  ],
  // A non-recursive CTE does not see itself: the inner name is the engine's view.
  [
    "WITH duckdb_tables AS (SELECT * FROM duckdb_tables) SELECT * FROM duckdb_tables",
    /table "duckdb_tables" is not one of the log tables/,
  ],
  // Nor the CTEs after it.
  [
    "WITH a AS (SELECT * FROM sqlite_master), sqlite_master AS (SELECT 1 AS x) SELECT * FROM a",
    /table "sqlite_master" is not one of the log tables/,
  ],
  // A parenthesized WITH ends at its parenthesis, though the parser hangs the next branch under it.
  [
    "(WITH pg_settings AS (SELECT 1 AS x) SELECT x FROM pg_settings) UNION ALL SELECT 1 FROM pg_settings",
    /table "pg_settings" is not one of the log tables/,
  ],
  // Nested shadowing: b is visible only inside the subquery that defines it.
  [
    "WITH a AS (SELECT 1 AS x) SELECT * FROM (WITH b AS (SELECT * FROM a) SELECT * FROM b) t, b",
    /table "b" is not one of the log tables/,
  ],
  [
    "WITH duckdb_secrets AS (SELECT 1 AS x) SELECT * FROM syslog WHERE EXISTS (SELECT 1 FROM (WITH duckdb_views AS (SELECT 1 AS y) SELECT y FROM duckdb_views) v, duckdb_views)",
    /table "duckdb_views" is not one of the log tables/,
  ],
];

/** Catalog views, schemas and table functions named directly; refused before and after. */
const DIRECT: Array<[string, RegExp]> = [
  ["SELECT * FROM pg_settings", /table "pg_settings" is not one of the log tables/],
  ["SELECT * FROM duckdb_tables", /table "duckdb_tables" is not one of the log tables/],
  ["SELECT * FROM sqlite_master", /table "sqlite_master" is not one of the log tables/],
  ["SELECT * FROM pg_catalog.pg_settings", /dataset "pg_catalog" is not allowed/],
  ["SELECT * FROM main.duckdb_settings", /dataset "main" is not allowed/],
  ["SELECT * FROM system.main.duckdb_settings", /dataset "main" is not allowed/],
  ["SELECT * FROM information_schema", /is not an INFORMATION_SCHEMA view/],
  ["SELECT * FROM information_schema.schemata", /INFORMATION_SCHEMA\.SCHEMATA is not allowed/],
  ["SELECT * FROM duckdb_tables()", /function duckdb_tables is not allowed/],
  ["SELECT * FROM duckdb_settings()", /function duckdb_settings is not allowed/],
  ["SELECT * FROM syslog, duckdb_secrets()", /function duckdb_secrets is not allowed/],
  ["SELECT * FROM read_csv('/proc/self/environ')", /function read_csv is not allowed/],
  ["SELECT * FROM glob('/root/.ssh/*')", /function glob is not allowed/],
  ["SELECT * FROM pragma_database_list()", /function pragma_database_list is not allowed/],
  ["SELECT * FROM syslog WHERE EXISTS (SELECT * FROM sqlite_schema)", /table "sqlite_schema" is not one/],
  ["WITH s AS (SELECT * FROM pg_catalog.pg_tables) SELECT * FROM s", /dataset "pg_catalog" is not allowed/],
];

function refusal(sql: string, options: SqlGuardOptions): string {
  try {
    guardSql(sql, options);
  } catch (error) {
    assert.ok(error instanceof SqlRefusedError, `expected SqlRefusedError, got ${String(error)}`);
    return error.message;
  }
  assert.fail(`accepted: ${sql}`);
}

describe("guardSql resolves one-part names by CTE scope", () => {
  for (const [sql, reason] of [...OUT_OF_SCOPE, ...DIRECT]) {
    it(`refuses ${JSON.stringify(sql.slice(0, 90))}`, () => {
      for (const options of [duck, bq]) assert.match(refusal(sql, options), reason);
    });
  }

  it("the first statement is a real attack: DuckDB resolves the outer name to its settings view", async () => {
    const instance = await DuckDBInstance.create(":memory:");
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(`SELECT count(*) AS n FROM (${OUT_OF_SCOPE[0]![0]})`);
      const rows = reader.getRowObjectsJson();
      assert.ok(Number(rows[0]?.n) > 10, "the engine returned its settings");
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it("accepts CTEs inside their scope, including later CTEs, set operations and nested shadowing", () => {
    const ok = [
      "WITH a AS (SELECT insertId FROM syslog), b AS (SELECT * FROM a) SELECT * FROM b UNION ALL SELECT * FROM a",
      "SELECT * FROM (WITH a AS (SELECT insertId FROM syslog) SELECT * FROM a) t",
      "WITH a AS (SELECT insertId FROM syslog) SELECT * FROM (WITH a AS (SELECT * FROM a) SELECT * FROM a) t, a",
      "WITH a AS (SELECT insertId FROM syslog) SELECT * FROM syslog WHERE insertId IN (SELECT insertId FROM a)",
    ];
    for (const sql of ok) {
      const out = guardSql(sql, duck);
      assert.deepEqual(out.tables, ["syslog"], sql);
    }
  });
});

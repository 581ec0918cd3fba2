import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jobRan, queryJobOptions, sanitizeLabels } from "../../../functions/src/adapters/bigquery/jobs.js";
import { rowsToJson } from "../../../functions/src/adapters/bigquery/values.js";

describe("BigQuery job bodies", () => {
  it("folds labels into BigQuery's alphabet and drops keys that cannot start with a letter", () => {
    assert.deepEqual(
      sanitizeLabels({
        Runbook: "Host Syslog/v2",
        "9lives": "x",
        investigation: "inv-0123456789abcdef01234567",
        long: "a".repeat(80),
      }),
      { runbook: "host_syslog_v2", investigation: "inv-0123456789abcdef01234567", long: "a".repeat(63) },
    );
  });

  it("sends each parameter as a decimal string with the type ferret chose, not the library's guess", () => {
    const options = queryJobOptions(
      {
        sql: "SELECT 1",
        params: { s: "2025-06-11T00:00:00Z", n: 3, huge: 2 ** 60, r: 0.5, b: false },
        labels: {},
        maximumBytesBilled: 100,
        jobTimeoutMs: 1_000,
      },
      { dryRun: false },
    );
    assert.deepEqual(options.params, {
      b: "false",
      huge: "1152921504606847000",
      n: "3",
      r: "0.5",
      s: "2025-06-11T00:00:00Z",
    });
    assert.deepEqual(options.types, { b: "BOOL", huge: "FLOAT64", n: "INT64", r: "FLOAT64", s: "STRING" });
    assert.equal(options.maximumBytesBilled, "100");
    assert.equal(options.jobPrefix, "ferret_");
    assert.equal(options.dryRun, undefined);
    const dry = queryJobOptions(
      { sql: "SELECT 1", params: {}, labels: {}, maximumBytesBilled: 1, jobTimeoutMs: 1 },
      { dryRun: true },
    );
    assert.equal(dry.dryRun, true);
    assert.equal(dry.jobPrefix, undefined);
  });

  it("recognizes only the exact statement and parameters it ran", () => {
    const sql = "SELECT 1 FROM `p.d.t` LIMIT 2";
    const params = { a: "x", n: 3 };
    // jobs.get reports parameters as the REST API stores them: decimal strings.
    const job = {
      configuration: {
        labels: { app: "ferret" },
        query: {
          query: sql,
          queryParameters: [
            { name: "n", parameterType: { type: "INT64" }, parameterValue: { value: "3" } },
            { name: "a", parameterType: { type: "STRING" }, parameterValue: { value: "x" } },
          ],
        },
      },
    };
    assert.equal(jobRan(job, sql, params), true);
    assert.equal(jobRan(job, sql, { a: "x", n: 4 }), false, "another parameter value");
    assert.equal(jobRan(job, sql, { a: "x", n: "3" }), false, "another parameter type");
    assert.equal(jobRan(job, sql, { a: "x" }), false, "a parameter fewer");
    assert.equal(jobRan(job, `${sql} `, params), false, "another statement");
    assert.equal(jobRan({ configuration: { ...job.configuration, labels: {} } }, sql, params), false);
    assert.equal(jobRan({ configuration: { ...job.configuration, dryRun: true } }, sql, params), false);
  });
});

describe("BigQuery values", () => {
  it("reads TIMESTAMP in both encodings the API uses", () => {
    const fields = [{ name: "t", type: "TIMESTAMP" }];
    assert.deepEqual(
      rowsToJson(fields, [{ f: [{ v: "1.718071234E9" }] }, { f: [{ v: "1718071234000000" }] }]),
      [{ t: "2024-06-11T02:00:34.000Z" }, { t: "2024-06-11T02:00:34.000Z" }],
    );
  });

  it("keeps what has no JSON number as BigQuery's text", () => {
    const fields = [
      { name: "n", type: "BIGNUMERIC" },
      { name: "b", type: "BYTES" },
      { name: "g", type: "GEOGRAPHY" },
    ];
    assert.deepEqual(
      rowsToJson(fields, [
        { f: [{ v: "123456789012345678901234567890" }, { v: "AQID" }, { v: "POINT(1 2)" }] },
      ]),
      [{ n: "123456789012345678901234567890", b: "AQID", g: "POINT(1 2)" }],
    );
  });
});

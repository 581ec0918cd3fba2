import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jobRan, queryJobBody, sanitizeLabels } from "../../../functions/src/adapters/bigquery/jobs.js";
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

  it("recognizes only the exact statement and parameters it ran", () => {
    const spec = {
      sql: "SELECT 1 FROM `p.d.t` LIMIT 2",
      params: { a: "x", n: 3 },
      labels: { app: "ferret" },
      maximumBytesBilled: 100,
      jobTimeoutMs: 1_000,
    };
    const body = queryJobBody(spec, { dryRun: false, projectId: "p", jobId: "ferret_1" });
    const job = { configuration: { labels: body.configuration.labels, query: body.configuration.query } };
    assert.equal(jobRan(job, spec.sql, spec.params), true);
    assert.equal(jobRan(job, spec.sql, { a: "x", n: 4 }), false, "another parameter value");
    assert.equal(jobRan(job, spec.sql, { a: "x", n: "3" }), false, "another parameter type");
    assert.equal(jobRan(job, `${spec.sql} `, spec.params), false, "another statement");
    assert.equal(
      jobRan({ configuration: { ...job.configuration, labels: {} } }, spec.sql, spec.params),
      false,
    );
    assert.equal(
      jobRan({ configuration: { ...job.configuration, dryRun: true } }, spec.sql, spec.params),
      false,
    );
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

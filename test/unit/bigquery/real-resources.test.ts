import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { describeFields } from "../../../functions/src/adapters/bigquery/describe.js";
import { checkDryRun } from "../../../functions/src/adapters/bigquery/dry-run-check.js";
import { jobRan } from "../../../functions/src/adapters/bigquery/jobs.js";
import { JobSchema, parseResource, TableSchema } from "../../../functions/src/adapters/bigquery/resources.js";
import { SqlRefusedError } from "../../../functions/src/domain/errors.js";

function real(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../fixtures/real/bigquery/${name}`, import.meta.url), "utf8"));
}

describe("BigQuery resources recorded from the service", () => {
  const job = parseResource(JobSchema, real("job-get-select.json"), "job");

  it("reads the engine's own account of a finished SELECT", () => {
    assert.equal(job.statistics?.query?.statementType, "SELECT");
    assert.equal(job.statistics?.query?.totalBytesProcessed, 5_597_805);
    assert.deepEqual(job.statistics?.query?.referencedTables, [
      { datasetId: "dataset_id", projectId: "projectid", tableId: "table_id" },
    ]);
  });

  it("the production guard passes it only over the allowed dataset's tables", () => {
    assert.doesNotThrow(() =>
      checkDryRun(job, { project: "projectid", dataset: "dataset_id", tables: ["table_id"] }),
    );
    for (const allowed of [
      { project: "projectid", dataset: "scc_logs", tables: ["table_id"] },
      { project: "other", dataset: "dataset_id", tables: ["table_id"] },
      { project: "projectid", dataset: "dataset_id", tables: ["syslog"] },
    ]) {
      assert.throws(() => checkDryRun(job, allowed), SqlRefusedError, JSON.stringify(allowed));
    }
  });

  it("a job ferret did not label is never read behind a page token, even with its exact statement", () => {
    const sql = job.configuration?.query?.query ?? "";
    assert.ok(sql.startsWith("SELECT * FROM `projectid.dataset_id.table_id`"));
    assert.equal(jobRan(job, sql, {}), false);
  });

  it("shows a public table's legacy type names the way GoogleSQL spells them", () => {
    const table = parseResource(TableSchema, real("table-get-cdc-places.json"), "table");
    const columns = new Map(describeFields(table.schema?.fields ?? [], undefined).map((c) => [c.name, c]));
    assert.equal(columns.size, 10);
    assert.equal(columns.get("year")?.type, "INT64");
    assert.equal(columns.get("data_value")?.type, "FLOAT64");
    assert.equal(columns.get("stateabbr")?.type, "STRING");
    assert.equal(table.description, "Local Data for Better Health, County Data");
  });
});

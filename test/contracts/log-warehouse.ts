import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import {
  DeadlineExceededError,
  FerretError,
  InvalidInputError,
  NotFoundError,
  SqlRefusedError,
} from "../../functions/src/domain/errors.js";
import type { LogWarehouse, QueryRequest, QueryResult } from "../../functions/src/ports/log-warehouse.js";
import { QueryFailedError, QueryTimeoutError } from "../../functions/src/sql/query-errors.js";

/**
 * What every LogWarehouse adapter does, whatever engine is behind it: one suite of behaviour
 * tests run against each (DuckDB over JSONL files; BigQuery against its replay server of
 * recorded REST answers). An adapter's own tests keep only what is its own (BigQuery's job
 * requests and dry run, DuckDB's sealed engine).
 *
 * The engines hold different data, so each harness names the facts of its data the suite
 * checks against, and prepares its backend for each scenario (the BigQuery harness scripts
 * the REST exchanges a scenario needs; the DuckDB harness opens the scenario's files).
 */
export type WarehouseScenario =
  /** listTables and describeTable. */
  | "tables"
  /** Statements the adapter must refuse before the engine runs anything. */
  | "refusals"
  /** `facts.paged.request`, read page by page. */
  | "paged"
  /** A query whose result is longer than `facts.capped.maxRows`. */
  | "capped"
  /** `facts.failing.sql`, which the engine rejects. */
  | "engine-error"
  /** A query asked with a signal that has already fired. */
  | "aborted"
  /** A statement that runs past the adapter's time budget. */
  | "timeout";

export interface OpenedWarehouse {
  warehouse: LogWarehouse;
  /** Statements the engine was asked to run (a BigQuery dry run prices, it does not run). */
  statementsRun(): number;
}

export interface WarehouseHarness {
  name: string;
  dialect: LogWarehouse["dialect"];
  open(scenario: WarehouseScenario): Promise<OpenedWarehouse>;
  facts: {
    /** Every table listTables offers, in its order. */
    tables: string[];
    /** A table name qualified the way queries may qualify it (dataset.table). */
    qualifiedTable: string;
    /** A nested field, named as a dotted path, with its BigQuery type name. */
    nested: { table: string; column: string; type: string };
    /** A field inside a repeated record, and the record (the description says to UNNEST it). */
    repeated: { table: string; column: string; array: string };
    /** A query of at least three pages of `pageSize`, under the row cap. */
    paged: { request: QueryRequest; totalRows: number };
    /** A query whose result the cap of `maxRows` cuts. */
    capped: { sql: string; maxRows: number };
    /** A statement the engine rejects, and words of the engine's message. */
    failing: { sql: string; says: RegExp };
    /** A statement that runs past the time budget the harness gives the "timeout" scenario. */
    slow: { sql: string };
  };
}

/** Statements the SQL guard refuses for every engine, before anything runs. */
const HOSTILE = [
  "DROP TABLE syslog",
  "DELETE FROM syslog WHERE TRUE",
  "SELECT 1; DELETE FROM syslog",
  "SELECT * FROM billing.invoices",
  "SELECT * FROM `other-project.scc_logs.syslog`",
];

export function logWarehouseContract(harness: WarehouseHarness): void {
  const { facts } = harness;
  const opened: LogWarehouse[] = [];
  const open = async (scenario: WarehouseScenario): Promise<OpenedWarehouse> => {
    const result = await harness.open(scenario);
    opened.push(result.warehouse);
    return result;
  };
  afterEach(async () => {
    for (const warehouse of opened.splice(0)) await warehouse.close();
  });

  describe(`LogWarehouse contract: ${harness.name}`, () => {
    it("names its SQL dialect, which the sub-agent is told", async () => {
      const { warehouse } = await open("tables");
      assert.equal(warehouse.dialect, harness.dialect);
    });

    it("lists its tables, each described with its columns, and describes each the same way by name", async () => {
      const { warehouse } = await open("tables");
      const tables = await warehouse.listTables();
      assert.deepEqual(
        tables.map((t) => t.name),
        facts.tables,
      );
      for (const table of tables) {
        assert.ok(table.description.length > 0, `${table.name} has a description`);
        assert.ok(table.columns.length > 0, `${table.name} has columns`);
        assert.deepEqual(await warehouse.describeTable(table.name), table);
      }
      const bare = facts.qualifiedTable.split(".").at(-1) ?? "";
      assert.deepEqual(
        await warehouse.describeTable(facts.qualifiedTable),
        await warehouse.describeTable(bare),
      );
    });

    it("describes nested fields as dotted paths with BigQuery type names, and says to UNNEST a repeated record", async () => {
      const { warehouse } = await open("tables");
      const nested = await warehouse.describeTable(facts.nested.table);
      const column = nested.columns.find((c) => c.name === facts.nested.column);
      assert.equal(column?.type, facts.nested.type);
      const repeated = await warehouse.describeTable(facts.repeated.table);
      const byName = new Map(repeated.columns.map((c) => [c.name, c]));
      assert.equal(byName.get(facts.repeated.array)?.type, "ARRAY<STRUCT>");
      assert.ok(
        byName
          .get(facts.repeated.column)
          ?.description?.includes(`inside ARRAY ${facts.repeated.array}: UNNEST it`),
        byName.get(facts.repeated.column)?.description,
      );
    });

    it("refuses to describe a table it does not have, naming the tables it has", async () => {
      const { warehouse } = await open("tables");
      await assert.rejects(warehouse.describeTable("secrets"), (error: unknown) => {
        assert.ok(error instanceof NotFoundError, String(error));
        for (const name of facts.tables)
          assert.ok(error.message.includes(name), `${error.message} names ${name}`);
        return true;
      });
    });

    it("refuses writes, several statements and tables outside its dataset before the engine runs anything", async () => {
      const { warehouse, statementsRun } = await open("refusals");
      for (const sql of HOSTILE) {
        await assert.rejects(warehouse.query({ sql }), SqlRefusedError, sql);
      }
      assert.equal(statementsRun(), 0);
    });

    it("refuses a statement whose parameter has no value, before the engine runs anything", async () => {
      const { warehouse, statementsRun } = await open("refusals");
      await assert.rejects(
        warehouse.query({ sql: "SELECT textPayload FROM syslog WHERE textPayload LIKE @pattern" }),
        (error: unknown) =>
          error instanceof InvalidInputError && /uses @pattern but no value was given/.test(error.message),
      );
      assert.equal(statementsRun(), 0);
    });

    it("pages through a result with opaque tokens: every row once, the last page without a token", async () => {
      const { warehouse, statementsRun } = await open("paged");
      const { request, totalRows } = facts.paged;
      const pageSize = request.pageSize ?? 0;
      const pages: QueryResult[] = [await warehouse.query(request)];
      for (let last = pages[0]; last?.nextPageToken; last = pages.at(-1)) {
        assert.ok(pages.length < 10, "the pages end");
        pages.push(await warehouse.query({ ...request, pageToken: last.nextPageToken }));
      }
      assert.ok(pages.length >= 3, `${pages.length} pages`);
      for (const page of pages) {
        assert.equal(page.totalRows, totalRows, "every page gives the whole result's size");
        assert.equal(page.truncated, false);
        assert.ok(page.rows.length <= pageSize && page.rows.length > 0);
        assert.deepEqual(page.columns, pages[0]?.columns);
        assert.equal(page.executedSql, pages[0]?.executedSql, "the statement that ran is the same");
      }
      const rows = pages.flatMap((p) => p.rows);
      assert.equal(rows.length, totalRows);
      assert.equal(new Set(rows.map((r) => JSON.stringify(r))).size, rows.length, "no row twice");
      assert.equal(statementsRun(), 1, "later pages read the first run's result");
    });

    it("refuses a page token from another query, and one it did not hand out, before running anything", async () => {
      const { warehouse, statementsRun } = await open("paged");
      const { request } = facts.paged;
      const first = await warehouse.query(request);
      assert.ok(first.nextPageToken);
      const ran = statementsRun();
      await assert.rejects(
        warehouse.query({
          sql: "SELECT textPayload FROM syslog",
          pageToken: first.nextPageToken,
        }),
        (error: unknown) =>
          error instanceof InvalidInputError && /belongs to a different query/.test(error.message),
      );
      await assert.rejects(warehouse.query({ ...request, pageToken: "not-a-token" }), InvalidInputError);
      assert.equal(statementsRun(), ran);
    });

    it("cuts a result at its row cap, says so, and offers nothing past it", async () => {
      const { warehouse } = await open("capped");
      const { sql, maxRows } = facts.capped;
      const result = await warehouse.query({ sql, pageSize: 500 });
      assert.equal(result.totalRows, maxRows);
      assert.equal(result.rows.length, maxRows);
      assert.equal(result.truncated, true);
      assert.equal(result.nextPageToken, undefined);
      assert.match(
        result.executedSql,
        new RegExp(` LIMIT ${maxRows + 1}$`),
        "one row past the cap tells a cut result",
      );
    });

    it("reports the engine's rejection of a statement in its own words, as not worth retrying", async () => {
      const { warehouse } = await open("engine-error");
      await assert.rejects(warehouse.query({ sql: facts.failing.sql }), (error: unknown) => {
        assert.ok(error instanceof QueryFailedError, String(error));
        assert.equal(error.retryable, false);
        assert.match(error.message, facts.failing.says);
        return true;
      });
    });

    it("runs nothing for a query whose step deadline has fired, and throws the step's reason", async () => {
      const { warehouse, statementsRun } = await open("aborted");
      const step = new AbortController();
      const reason = new DeadlineExceededError("the step's deadline passed");
      step.abort(reason);
      await assert.rejects(
        warehouse.query({ sql: "SELECT textPayload FROM syslog", signal: step.signal }),
        (error: unknown) => error === reason,
      );
      const bare = new AbortController();
      bare.abort();
      await assert.rejects(
        warehouse.query({ sql: "SELECT textPayload FROM syslog", signal: bare.signal }),
        (error: unknown) => error instanceof DeadlineExceededError,
        "a signal without a ferret reason still says the deadline passed",
      );
      assert.equal(statementsRun(), 0);
    });

    it("stops a statement at its time budget with a timeout error", async () => {
      const { warehouse } = await open("timeout");
      await assert.rejects(warehouse.query({ sql: facts.slow.sql }), (error: unknown) => {
        assert.ok(error instanceof QueryTimeoutError, String(error));
        assert.ok(error instanceof FerretError);
        assert.equal(error.retryable, false);
        return true;
      });
    });

    it("refuses queries once closed, as a storage error not worth retrying", async () => {
      const { warehouse } = await open("refusals");
      await warehouse.close();
      await assert.rejects(
        warehouse.query({ sql: "SELECT textPayload FROM syslog" }),
        (error: unknown) => error instanceof FerretError && error.code === "storage" && !error.retryable,
      );
    });
  });
}

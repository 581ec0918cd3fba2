import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newInvestigation } from "../../../functions/src/app/ingest.js";
import { investigationScanBudget } from "../../../functions/src/app/scan-budget.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import { BudgetExceededError } from "../../../functions/src/domain/errors.js";
import type { LogWarehouse, QueryRequest, QueryResult } from "../../../functions/src/ports/log-warehouse.js";
import { loadRunbooks } from "../../../functions/src/sql/runbooks.js";
import { createLogQueryTool } from "../../../functions/src/tools/log-query.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import { MemoryInvestigationStore } from "../../helpers/memory-investigation-store.js";
import { scenarioContext } from "../tools/context.js";

/** A BigQuery-like warehouse: every query reports `bytes` processed; pages of a job report none. */
class MeteredWarehouse implements LogWarehouse {
  readonly dialect = "bigquery" as const;
  readonly queries: QueryRequest[] = [];
  constructor(private readonly bytes: number) {}
  async listTables() {
    return [];
  }
  async describeTable(name: string) {
    return { name, description: "", columns: [] };
  }
  async query(request: QueryRequest): Promise<QueryResult> {
    this.queries.push(request);
    return {
      columns: ["n"],
      rows: [{ n: 1 }],
      totalRows: 1,
      truncated: false,
      ...(request.pageToken ? {} : { bytesProcessed: this.bytes }),
      executedSql: request.sql,
    };
  }
  async close() {}
}

const GiB = 1024 ** 3;
const ctx = scenarioContext();
const investigation = newInvestigation(ctx.finding, {
  config: loadConfig({ env: {} }),
  now: new Date("2025-06-11T04:00:00Z"),
  modelName: "scripted",
});
const SQL = {
  sql: "SELECT 1 AS n FROM compute_googleapis_com_vpc_flows WHERE timestamp BETWEEN @start AND @end LIMIT 1",
  params: { start: "2025-06-11T00:00:00Z", end: "2025-06-11T04:00:00Z" },
};

/** The investigation in the in-memory store (it passes the InvestigationStore contract suite). */
async function stored(): Promise<MemoryInvestigationStore> {
  const store = new MemoryInvestigationStore();
  await store.create(structuredClone(investigation), []);
  return store;
}

async function scanned(store: MemoryInvestigationStore): Promise<number> {
  return (await store.require(investigation.id)).counters.bytesScanned ?? 0;
}

async function setup(budgetGiB: number, capGiB: number, bytesPerQuery: number) {
  const store = await stored();
  const warehouse = new MeteredWarehouse(bytesPerQuery);
  const scanBudget = investigationScanBudget(store, investigation.id, {
    budgetBytes: budgetGiB * GiB,
    worstCaseBytes: capGiB * GiB,
  });
  const tools = createToolRegistry([createLogQueryTool({ warehouse, runbooks: loadRunbooks() })]);
  const query = () => tools.run("log_query", SQL, { ...ctx, scanBudget });
  return { store, warehouse, scanBudget, query };
}

describe("the per-investigation scan budget", () => {
  it("charges each query what it scanned and refuses the one that could run past the budget, before it runs", async () => {
    // Budget 25 GiB, per-query cap 10 GiB, each query scans 6 GiB.
    const { store, warehouse, query } = await setup(25, 10, 6 * GiB);
    const first = await query();
    assert.equal(first.ok, true);
    assert.equal(await scanned(store), 6 * GiB);
    assert.equal((await query()).ok, true);
    assert.equal(await scanned(store), 12 * GiB);
    // 12 + 10 (worst case) = 22 ≤ 25: admitted.
    assert.equal((await query()).ok, true);
    assert.equal(await scanned(store), 18 * GiB);
    // 18 + 10 = 28 > 25: refused, and the warehouse never sees it.
    const refused = await query();
    assert.equal(refused.ok, false);
    assert.match(
      refused.summary,
      /query refused before it ran: this investigation has 7\.0 GiB of its 25\.0 GiB scan budget left/,
    );
    assert.equal(warehouse.queries.length, 3);
    assert.equal(await scanned(store), 18 * GiB, "a refused query charges nothing");
  });

  it("reserves the worst case while a query runs, so parallel queries cannot overrun the budget together", async () => {
    const { scanBudget, store } = await setup(25, 10, 0);
    const a = await scanBudget.reserve();
    const b = await scanBudget.reserve();
    assert.equal(await scanned(store), 20 * GiB);
    await assert.rejects(scanBudget.reserve(), BudgetExceededError);
    await a.settle(1 * GiB);
    await b.settle(undefined);
    assert.equal(
      await scanned(store),
      1 * GiB,
      "settled to what ran; a query that reported nothing keeps nothing",
    );
    await b.settle(5 * GiB);
    assert.equal(await scanned(store), 1 * GiB, "a reservation settles once");
  });

  it("a further page of a finished job reserves nothing (it scans nothing)", async () => {
    const { scanBudget, store, warehouse } = await setup(10, 10, 10 * GiB);
    await (await scanBudget.reserve()).settle(10 * GiB);
    const tools = createToolRegistry([createLogQueryTool({ warehouse, runbooks: loadRunbooks() })]);
    const page = await tools.run("log_query", { ...SQL, pageToken: "next" }, { ...ctx, scanBudget });
    assert.equal(page.ok, true, page.summary);
    assert.equal(await scanned(store), 10 * GiB);
  });

  it("a query that fails keeps nothing of its reservation", async () => {
    const store = await stored();
    const scanBudget = investigationScanBudget(store, investigation.id, {
      budgetBytes: 20 * GiB,
      worstCaseBytes: 10 * GiB,
    });
    const failing: LogWarehouse = {
      dialect: "bigquery",
      listTables: async () => [],
      describeTable: async (name) => ({ name, description: "", columns: [] }),
      query: async () => {
        throw new Error("backend error");
      },
      close: async () => {},
    };
    const tools = createToolRegistry([createLogQueryTool({ warehouse: failing, runbooks: loadRunbooks() })]);
    const out = await tools.run("log_query", SQL, { ...ctx, scanBudget });
    assert.equal(out.ok, false);
    assert.equal(await scanned(store), 0);
  });

  it("an aborted step starts no query", async () => {
    const { warehouse, store } = await setup(25, 10, GiB);
    const controller = new AbortController();
    controller.abort(new Error("step deadline passed"));
    const tools = createToolRegistry([createLogQueryTool({ warehouse, runbooks: loadRunbooks() })]);
    const out = await tools.run("log_query", SQL, { ...ctx, signal: controller.signal });
    assert.equal(out.ok, false);
    assert.match(out.summary, /step deadline passed/);
    assert.equal(warehouse.queries.length, 0);
    assert.equal(await scanned(store), 0);
  });

  it("hands the step's signal to the warehouse, so a running BigQuery job can be cancelled", async () => {
    const { warehouse } = await setup(25, 10, GiB);
    const controller = new AbortController();
    const tools = createToolRegistry([createLogQueryTool({ warehouse, runbooks: loadRunbooks() })]);
    const out = await tools.run("log_query", SQL, { ...ctx, signal: controller.signal });
    assert.equal(out.ok, true);
    assert.equal(warehouse.queries.length, 1);
    assert.equal(warehouse.queries[0]!.signal, controller.signal);
  });
});

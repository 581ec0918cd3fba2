import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type DuckDbLogWarehouse,
  openDuckDbWarehouse,
} from "../../../functions/src/adapters/duckdb/warehouse.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { loadRunbooks } from "../../../functions/src/sql/runbooks.js";
import { createLogQueryTool } from "../../../functions/src/tools/log-query.js";
import { createToolRegistry, type ToolRegistry } from "../../../functions/src/tools/registry.js";
import { CRYPTO_LOGS, scenarioContext, WINDOW } from "./context.js";

const ctx = scenarioContext();

interface PageData {
  rows: JsonObject[];
  totalRows: number;
  nextPageToken?: string;
  executedSql: string;
  error?: JsonObject;
}
const page = (data: unknown) => data as PageData;

describe("log_query", () => {
  let warehouse: DuckDbLogWarehouse;
  let registry: ToolRegistry;
  let tight: ToolRegistry;
  before(async () => {
    warehouse = await openDuckDbWarehouse({ dir: CRYPTO_LOGS });
    const runbooks = loadRunbooks();
    registry = createToolRegistry([createLogQueryTool({ warehouse, runbooks })]);
    tight = createToolRegistry([
      createLogQueryTool({ warehouse, runbooks, maxPageBytes: 2_500, maxCellChars: 40 }),
    ]);
  });
  after(async () => {
    await warehouse.close();
  });

  it("runs a runbook and reports the public IPs it saw as IOCs", async () => {
    const out = await registry.run(
      "log_query",
      { runbook: "vpc_flows_from_instance", params: { instance: "etl-worker-1", ...WINDOW } },
      ctx,
    );
    assert.equal(out.ok, true, out.summary);
    const data = page(out.data);
    assert.equal(data.rows[0]!.dest_ip, "203.0.113.88");
    assert.match(
      out.summary,
      /^runbook vpc_flows_from_instance: 25 row\(s\); this page has 25\. Columns: dest_ip, dest_port/,
    );
    const pool = out.iocs?.find((i) => i.value === "203.0.113.88");
    assert.deepEqual(pool, {
      type: "ip",
      value: "203.0.113.88",
      context: "seen in runbook vpc_flows_from_instance results",
    });
    assert.equal(
      out.iocs?.some((i) => i.value.startsWith("10.128.")),
      false,
    );
  });

  it("runs free SQL with @parameters", async () => {
    const out = await registry.run(
      "log_query",
      {
        sql: "SELECT COUNT(*) AS n FROM dns_googleapis_com_dns_queries WHERE jsonPayload.queryName = @domain",
        params: { domain: "xmr.pool-relay.top." },
      },
      ctx,
    );
    assert.equal(out.ok, true, out.summary);
    assert.ok(Number(page(out.data).rows[0]!.n) > 0);
  });

  it("pages with the token from the previous call", async () => {
    const args = { runbook: "host_syslog", params: { instance: "etl-worker-1", ...WINDOW }, pageSize: 5 };
    const first = page((await registry.run("log_query", args, ctx)).data);
    const second = page(
      (await registry.run("log_query", { ...args, pageToken: first.nextPageToken }, ctx)).data,
    );
    const both = page((await registry.run("log_query", { ...args, pageSize: 10 }, ctx)).data);
    assert.deepEqual([...first.rows, ...second.rows], both.rows);
  });

  it("keeps a page within its byte budget by reading fewer rows, without skipping any", async () => {
    const args = { runbook: "host_syslog", params: { instance: "etl-worker-1", ...WINDOW }, pageSize: 50 };
    const first = await tight.run("log_query", args, ctx);
    const data = page(first.data);
    assert.ok(data.rows.length < 50 && data.rows.length >= 1, `${data.rows.length} rows`);
    assert.ok(Buffer.byteLength(JSON.stringify(data.rows)) <= 2_500);
    assert.match(String(data.rows[0]!.line), /^.{40}…\[\d+ more chars\]$/);
    const next = page((await tight.run("log_query", { ...args, pageToken: data.nextPageToken }, ctx)).data);
    const reference = page((await registry.run("log_query", { ...args, pageSize: 100 }, ctx)).data);
    const lineOf = (r: JsonObject) => String(r.timestamp);
    assert.deepEqual(
      [...data.rows, ...next.rows].map(lineOf),
      reference.rows.slice(0, data.rows.length + next.rows.length).map(lineOf),
    );
  });

  it("needs exactly one of runbook or sql", async () => {
    for (const args of [{}, { runbook: "host_syslog", sql: "SELECT 1 FROM syslog" }]) {
      const out = await registry.run("log_query", args, ctx);
      assert.equal(page(out.data).error?.code, "tool_input");
      assert.match(out.summary, /give exactly one of runbook or sql/);
    }
    const unknown = await registry.run("log_query", { runbook: "drop_all" }, ctx);
    assert.equal(page(unknown.data).error?.code, "tool_input");
  });

  it("reports runbook parameter mistakes and refused SQL as non-retryable errors", async () => {
    const missing = await registry.run("log_query", { runbook: "vpc_flows_to_ip", params: WINDOW }, ctx);
    assert.deepEqual(page(missing.data).error?.code, "invalid_input");
    assert.match(missing.summary, /needs ip \(STRING\)/);
    const hostile = await registry.run("log_query", { sql: "SELECT * FROM read_csv('/etc/passwd')" }, ctx);
    assert.equal(hostile.ok, false);
    assert.deepEqual(page(hostile.data).error, {
      code: "sql_refused",
      message:
        "query refused: function read_csv is not allowed (it reads outside the log tables or inspects the engine)",
      retryable: false,
    });
  });

  it("says plainly when nothing matched", async () => {
    const out = await registry.run(
      "log_query",
      { runbook: "vpc_flows_to_ip", params: { ip: "192.0.2.250", ...WINDOW } },
      ctx,
    );
    assert.equal(out.ok, true);
    assert.match(out.summary, /^runbook vpc_flows_to_ip: no rows matched/);
    assert.deepEqual(out.iocs, []);
  });
});

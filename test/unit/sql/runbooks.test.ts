import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type DuckDbLogWarehouse,
  openDuckDbWarehouse,
} from "../../../functions/src/adapters/duckdb/warehouse.js";
import { ConfigError, InvalidInputError, NotFoundError } from "../../../functions/src/domain/errors.js";
import { guardSql } from "../../../functions/src/sql/guard.js";
import { LOG_TABLES } from "../../../functions/src/sql/log-schema.js";
import { loadRunbooks, parseRunbook, renderRunbook } from "../../../functions/src/sql/runbooks.js";
import { bigQueryTarget, duckDbTarget } from "../../../functions/src/sql/targets.js";

const library = loadRunbooks();
const WINDOW = { start: "2025-06-11T00:14:27Z", end: "2025-06-11T04:14:27Z" };
/** Parameters that point each runbook at something present in the cryptomining logs. */
const SAMPLE_PARAMS: Record<string, Record<string, string>> = {
  principal_activity: { principal: "terraform@acme-analytics-prod.iam.gserviceaccount.com" },
  caller_ip_activity: { ip: "34.118.12.41" },
  resource_activity: { resource: "etl-worker-1" },
  iam_policy_changes: {},
  service_account_key_activity: { service_account: "etl-runner@acme-analytics-prod.iam.gserviceaccount.com" },
  vpc_flows_to_ip: { ip: "203.0.113.88" },
  vpc_flows_from_instance: { instance: "etl-worker-1" },
  vpc_flows_to_instance: { instance: "etl-worker-1" },
  dns_queries_for_domain: { domain: "pool-relay.top" },
  dns_queries_from_instance: { instance: "etl-worker-1" },
  host_syslog: { instance: "etl-worker-1" },
  host_syslog_search: { instance: "etl-worker-1", term: "/tmp/" },
  ssh_logins_from_ip: { ip: "198.51.100.77" },
  ssh_logins_on_host: { instance: "etl-worker-1" },
  bucket_iam_changes: { bucket: "acme-analytics-raw" },
  bucket_data_access: { bucket: "acme-analytics-raw" },
  principal_history: {
    principal: "terraform@acme-analytics-prod.iam.gserviceaccount.com",
    recent: "2025-06-11T02:00:00Z",
  },
  access_denied_then_allowed: {},
  lb_requests_from_ip: { ip: "198.51.100.77" },
  lb_requests_to_backend: { backend_service: "shop-web-backend" },
  vpc_flows_to_dns_answers: { domain: "pool-relay.top" },
  host_syslog_near_dns: { domain: "pool-relay.top" },
  dns_lookups_answered_with_ip: { ip: "203.0.113.88" },
  logging_config_changes: {},
  data_access_by_resource: {},
  resource_changer_history: { resource: "etl-worker-1", recent: "2025-06-11T02:00:00Z" },
};

describe("runbook library", () => {
  it("covers the common GCP questions", () => {
    assert.deepEqual(library.names().sort(), Object.keys(SAMPLE_PARAMS).sort());
  });

  it("declares tables from the log schema and time windows as parameters on every runbook", () => {
    const schemaTables = new Set(LOG_TABLES.map((t) => t.name));
    for (const runbook of library.list()) {
      for (const table of runbook.tables) assert.ok(schemaTables.has(table), `${runbook.name}: ${table}`);
      const params = new Map(runbook.params.map((p) => [p.name, p.type]));
      assert.equal(params.get("start"), "TIMESTAMP", runbook.name);
      assert.equal(params.get("end"), "TIMESTAMP", runbook.name);
      assert.doesNotMatch(
        runbook.sql,
        /CURRENT_TIMESTAMP|NOW\(\)|CURRENT_DATE/i,
        `${runbook.name} must not read the wall clock`,
      );
    }
  });

  it("passes the guard for BigQuery and DuckDB, reading exactly the tables it declares", () => {
    const scope = { allowedTables: LOG_TABLES.map((t) => t.name), dataset: "logs", project: "p" };
    for (const runbook of library.list()) {
      for (const target of [bigQueryTarget(scope), duckDbTarget]) {
        const guarded = guardSql(runbook.sql, { ...scope, maxRows: 1000, target });
        assert.deepEqual([...guarded.tables].sort(), [...runbook.tables].sort(), runbook.name);
        assert.deepEqual([...guarded.params].sort(), runbook.params.map((p) => p.name).sort(), runbook.name);
      }
    }
  });

  it("refuses unknown runbooks by name", () => {
    assert.throws(
      () => library.get("drop_everything"),
      (e: unknown) => e instanceof NotFoundError && /runbooks: /.test(e.message),
    );
  });
});

describe("runbooks on the cryptomining logs", () => {
  let warehouse: DuckDbLogWarehouse;
  before(async () => {
    warehouse = await openDuckDbWarehouse({ dir: "examples/scenarios/cryptomining/logs" });
  });
  after(async () => {
    await warehouse.close();
  });

  it("every runbook runs", async () => {
    for (const runbook of library.list()) {
      const result = await warehouse.query(
        renderRunbook(runbook, { ...SAMPLE_PARAMS[runbook.name], ...WINDOW }),
      );
      assert.ok(result.columns.length > 0, runbook.name);
    }
  });

  it("vpc_flows_from_instance ranks the mining pool first", async () => {
    const result = await warehouse.query(
      renderRunbook(library.get("vpc_flows_from_instance"), { instance: "etl-worker-1", ...WINDOW }),
    );
    const top = result.rows[0]!;
    assert.equal(top.dest_ip, "203.0.113.88");
    assert.equal(top.dest_port, 3333);
    assert.equal(top.external, true);
    assert.ok(Number(top.flows) > 60);
  });

  it("vpc_flows_to_dns_answers joins the lookup to the connections that followed it", async () => {
    const result = await warehouse.query(
      renderRunbook(library.get("vpc_flows_to_dns_answers"), { domain: "pool-relay.top", ...WINDOW }),
    );
    assert.equal(result.rows[0]?.vm, "etl-worker-1");
    assert.equal(result.rows[0]?.dest_ip, "203.0.113.88");
    assert.ok(Number(result.rows[0]?.flows) > 10);
  });

  it("host_syslog_near_dns reads the resolving VM's lines in the minutes of its first lookup", async () => {
    const result = await warehouse.query(
      renderRunbook(library.get("host_syslog_near_dns"), { domain: "pool-relay.top", ...WINDOW }),
    );
    assert.ok(result.rows.length > 0);
    assert.ok(result.rows.every((r) => r.host === "etl-worker-1"));
  });

  it("dns_queries_for_domain shows who resolved the pool and to what", async () => {
    const result = await warehouse.query(
      renderRunbook(library.get("dns_queries_for_domain"), { domain: "pool-relay.top", ...WINDOW }),
    );
    assert.equal(result.rows.length, 1);
    assert.equal(result.rows[0]!.vm, "etl-worker-1");
    assert.match(String(result.rows[0]!.answer), /\t203\.0\.113\.88$/);
  });

  it("ssh_logins_from_ip separates failed guesses from the accepted login", async () => {
    const result = await warehouse.query(
      renderRunbook(library.get("ssh_logins_from_ip"), { ip: "198.51.100.77", ...WINDOW }),
    );
    const byOutcome = Object.fromEntries(result.rows.map((r) => [r.outcome, r.lines]));
    assert.deepEqual(byOutcome, { failed_password: 70, accepted: 1 });
  });

  it("ssh_logins_on_host extracts the source IP portably", async () => {
    const result = await warehouse.query(
      renderRunbook(library.get("ssh_logins_on_host"), { instance: "etl-worker-1", ...WINDOW }),
    );
    const attacker = result.rows.filter((r) => r.source_ip === "198.51.100.77");
    assert.deepEqual(attacker.map((r) => [r.outcome, r.lines]).sort(), [
      ["accepted", 1],
      ["failed_password", 70],
    ]);
  });
});

describe("renderRunbook", () => {
  const runbook = library.get("vpc_flows_to_ip");

  it("normalizes timestamps and labels the query with the runbook", () => {
    const request = renderRunbook(
      runbook,
      { ip: " 203.0.113.88 ", start: "2025-06-11T02:00:00+02:00", end: "2025-06-11T03:00:00Z" },
      { pageSize: 10 },
    );
    assert.deepEqual(request.params, {
      ip: "203.0.113.88",
      start: "2025-06-11T00:00:00.000Z",
      end: "2025-06-11T03:00:00.000Z",
    });
    assert.equal(request.pageSize, 10);
    assert.deepEqual(request.labels, { runbook: "vpc_flows_to_ip" });
  });

  it("refuses unknown, missing and malformed parameters and inverted windows", () => {
    assert.throws(
      () => renderRunbook(runbook, { ip: "1.2.3.4", instance: "x", ...WINDOW }),
      /has no parameter instance/,
    );
    assert.throws(() => renderRunbook(runbook, { ...WINDOW }), /needs ip \(STRING\)/);
    assert.throws(
      () => renderRunbook(runbook, { ip: "1.2.3.4", start: "yesterday", end: WINDOW.end }),
      /ISO 8601/,
    );
    assert.throws(
      () => renderRunbook(runbook, { ip: "1.2.3.4", start: WINDOW.end, end: WINDOW.start }),
      (e: unknown) => e instanceof InvalidInputError && /is before start/.test(e.message),
    );
  });
});

describe("parseRunbook", () => {
  const header = [
    "-- name: demo_runbook",
    "-- description: A demonstration runbook that lists syslog lines of one VM.",
    "-- tables: syslog",
  ];

  it("reads the header and body", () => {
    const runbook = parseRunbook(
      [
        ...header,
        "-- param: vm STRING the VM name",
        "SELECT textPayload FROM syslog WHERE labels.compute_googleapis_com_resource_name = @vm",
      ].join("\n"),
    );
    assert.equal(runbook.name, "demo_runbook");
    assert.deepEqual(runbook.params, [{ name: "vm", type: "STRING", description: "the VM name" }]);
    assert.equal(
      runbook.sql,
      "SELECT textPayload FROM syslog WHERE labels.compute_googleapis_com_resource_name = @vm",
    );
  });

  it("refuses a header that does not declare the SQL's parameters, or an unknown type", () => {
    assert.throws(
      () => parseRunbook([...header, "SELECT * FROM syslog WHERE textPayload = @x"].join("\n")),
      (e: unknown) => e instanceof ConfigError && /undeclared: x/.test(e.message),
    );
    assert.throws(
      () => parseRunbook([...header, "-- param: x DATE a day", "SELECT @x"].join("\n")),
      /invalid runbook header/,
    );
  });
});

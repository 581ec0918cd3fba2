import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { stageLogDir } from "../../../functions/src/adapters/duckdb/log-files.js";
import { openDuckDbWarehouse } from "../../../functions/src/adapters/duckdb/warehouse.js";
import { LOG_TABLES } from "../../../functions/src/sql/log-schema.js";

const REAL = "test/fixtures/real/logs";
const ALL_TIME = "timestamp BETWEEN TIMESTAMP '2000-01-01' AND TIMESTAMP '2100-01-01'";

async function rows(dir: string, sql: string) {
  const problems: string[] = [];
  const warehouse = await openDuckDbWarehouse({ dir, onProblem: (p) => problems.push(p) });
  try {
    return { rows: (await warehouse.query({ sql })).rows, problems, report: warehouse.loadReport() };
  } finally {
    await warehouse.close();
  }
}

describe("real Cloud Logging entries through DuckDB", () => {
  const temps: string[] = [];
  const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), "ferret-real-logs-"));
    temps.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });

  it("reads Cloud Storage sink JSON lines: audit principals, caller IPs and status codes", async () => {
    const {
      rows: audit,
      problems,
      report,
    } = await rows(
      `${REAL}/storage-sink`,
      `SELECT protopayload_auditlog.authenticationInfo.principalEmail AS who,
              protopayload_auditlog.requestMetadata.callerIp AS ip,
              protopayload_auditlog.methodName AS method,
              protopayload_auditlog.status.code AS code
       FROM cloudaudit_googleapis_com_data_access WHERE ${ALL_TIME} ORDER BY timestamp LIMIT 20`,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      report.files.map((f) => [f.file, f.format]),
      [
        ["elastic-audit-excerpt.jsonl", "logentry"],
        ["elastic-cloudresourcemanager-setiampolicy.jsonl", "logentry"],
        ["elastic-dns-queries.jsonl", "logentry"],
        ["elastic-iamcredentials-generateaccesstoken.jsonl", "logentry"],
      ],
    );
    assert.deepEqual(audit, [
      { who: "xxx@xxx.xxx", ip: "192.168.1.1", method: "beta.compute.instances.aggregatedList", code: 7 },
      {
        who: "xxx@xxx.xxx",
        ip: "192.168.1.1",
        method: "beta.compute.machineTypes.aggregatedList",
        code: null,
      },
      { who: "xxx@xxx.xxx", ip: "192.168.1.1", method: "GetResourceBillingInfo", code: null },
      { who: "system:anonymous", ip: "127.0.0.1", method: "io.k8s.get", code: null },
      { who: null, ip: "175.16.199.45", method: "GenerateAccessToken", code: null },
    ]);
  });

  it("reads the IAM policy delta of a real SetIamPolicy and the metadata of a token grant", async () => {
    const { rows: deltas } = await rows(
      `${REAL}/storage-sink`,
      `SELECT protopayload_auditlog.authenticationInfo.principalEmail AS who, d.action, d.role, d.member
       FROM cloudaudit_googleapis_com_activity, UNNEST(protopayload_auditlog.servicedata_v1_iam.policyDelta.bindingDeltas) AS d
       WHERE ${ALL_TIME} LIMIT 10`,
    );
    assert.deepEqual(deltas, [
      {
        who: "made-up-ci-account@project-id.iam.gserviceaccount.com",
        action: "ADD",
        role: "roles/resourcemanager.projectIamAdmin",
        member: "serviceAccount:project-id@cloudservices.gserviceaccount.com",
      },
    ]);
    const { rows: chain } = await rows(
      `${REAL}/storage-sink`,
      `SELECT json_extract_scalar(protopayload_auditlog.metadataJson, '$.identityDelegationChain[0]') AS sa,
              resource.labels.email_id AS email
       FROM cloudaudit_googleapis_com_data_access WHERE ${ALL_TIME} AND protopayload_auditlog.methodName = 'GenerateAccessToken' LIMIT 5`,
    );
    assert.deepEqual(chain, [
      {
        sa: "projects/-/serviceAccounts/made-up-ci-account@project-id.iam.gserviceaccount.com",
        email: "made-up-ci-account@project-id.iam.gserviceaccount.com",
      },
    ]);
  });

  it("reads DNS query logs with the log schema's column names", async () => {
    const { rows: dns } = await rows(
      `${REAL}/storage-sink`,
      `SELECT jsonPayload.queryName AS name, jsonPayload.queryType AS type, jsonPayload.vmInstanceName AS vm
       FROM dns_googleapis_com_dns_queries WHERE ${ALL_TIME} ORDER BY timestamp LIMIT 10`,
    );
    assert.deepEqual(
      dns.map((r) => [r.name, r.type, r.vm]),
      [
        ["elastic.co.", "A", "694119234537.instance"],
        ["elastic.co.", "AAAA", "694119234537.instance"],
        ["elastic.co.", "MX", "694119234537.instance"],
      ],
    );
  });

  it("reads gcloud logging read --format=json output (a JSON array)", async () => {
    const { rows: who, report } = await rows(
      `${REAL}/gcloud`,
      `SELECT protopayload_auditlog.authenticationInfo.principalEmail AS who FROM cloudaudit_googleapis_com_activity WHERE ${ALL_TIME} LIMIT 5`,
    );
    assert.deepEqual(who, [{ who: "made-up-ci-account@project-id.iam.gserviceaccount.com" }]);
    assert.deepEqual(report.files[0]?.tables, {
      cloudaudit_googleapis_com_activity: 1,
      cloudaudit_googleapis_com_data_access: 1,
    });
  });

  it("converts raw entries even in a file named like the sink table, and merges them with sink rows", async () => {
    const dir = temp();
    const raw = readFileSync(`${REAL}/storage-sink/elastic-cloudresourcemanager-setiampolicy.jsonl`, "utf8");
    const sinkRow = {
      logName: "projects/p/logs/cloudaudit.googleapis.com%2Factivity",
      timestamp: "2024-11-19T14:00:00Z",
      protopayload_auditlog: { authenticationInfo: { principalEmail: "sink@example.com" } },
    };
    writeFileSync(
      join(dir, "cloudaudit_googleapis_com_activity.jsonl"),
      `${raw.trim()}\n${JSON.stringify(sinkRow)}\n`,
    );
    const { rows: who, report } = await rows(
      dir,
      `SELECT protopayload_auditlog.authenticationInfo.principalEmail AS who FROM cloudaudit_googleapis_com_activity WHERE ${ALL_TIME} ORDER BY timestamp LIMIT 5`,
    );
    assert.deepEqual(
      who.map((r) => r.who),
      ["made-up-ci-account@project-id.iam.gserviceaccount.com", "sink@example.com"],
    );
    assert.equal(report.files[0]?.format, "mixed");
  });

  it("refuses a file of unknown layout by name, saying what is missing, and loads the rest", async () => {
    const dir = temp();
    copyFileSync(`${REAL}/storage-sink/elastic-dns-queries.jsonl`, join(dir, "dns.jsonl"));
    writeFileSync(join(dir, "cloudaudit_googleapis_com_activity.jsonl"), '{"who":"x","when":"y"}\n');
    writeFileSync(join(dir, "export.json"), '{"results":[]}');
    const { rows: dns, problems } = await rows(
      dir,
      `SELECT count(*) AS n FROM dns_googleapis_com_dns_queries WHERE ${ALL_TIME}`,
    );
    assert.deepEqual(dns, [{ n: 3 }]);
    assert.equal(problems.length, 2);
    assert.match(
      problems[0]!,
      /^cloudaudit_googleapis_com_activity\.jsonl: refused: .*timestamp.*protopayload_auditlog/,
    );
    assert.match(problems[1]!, /^export\.json: refused: not a Cloud Logging export/);
  });

  it("reads a Cloud Storage sink's own layout: <log>/YYYY/MM/DD/*.json files of JSON lines", async () => {
    const dir = temp();
    const hour = join(dir, "cloudaudit.googleapis.com", "activity", "2024", "11", "19");
    mkdirSync(hour, { recursive: true });
    copyFileSync(
      `${REAL}/storage-sink/elastic-cloudresourcemanager-setiampolicy.jsonl`,
      join(hour, "13:00:00_13:59:59_S0.json"),
    );
    const { rows: who, problems } = await rows(
      dir,
      `SELECT protopayload_auditlog.methodName AS method FROM cloudaudit_googleapis_com_activity WHERE ${ALL_TIME} LIMIT 5`,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(who, [{ method: "SetIamPolicy" }]);
  });

  it("skips a malformed line with its line number instead of failing the directory", async () => {
    const dir = temp();
    const good = readFileSync(`${REAL}/storage-sink/elastic-dns-queries.jsonl`, "utf8").trim().split("\n");
    writeFileSync(join(dir, "queries.jsonl"), [good[0], "{not json", good[1]].join("\n"));
    const staged = stageLogDir(dir, LOG_TABLES);
    try {
      assert.deepEqual(
        staged.report.problems.map((p) => [p.file, p.line, p.refused]),
        [["queries.jsonl", 2, false]],
      );
      assert.deepEqual(staged.report.files[0]?.tables, { dns_googleapis_com_dns_queries: 2 });
    } finally {
      staged.cleanup();
    }
  });
});

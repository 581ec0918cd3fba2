import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  convertLogEntry,
  LogEntryError,
  serviceDataField,
  sinkFieldName,
} from "../../../functions/src/adapters/duckdb/log-entry/convert.js";
import { schemaSpelling } from "../../../functions/src/adapters/duckdb/log-entry/spelling.js";
import { tableForLogName } from "../../../functions/src/adapters/duckdb/log-entry/table-name.js";
import { logTableDef } from "../../../functions/src/sql/log-schema.js";

describe("tableForLogName", () => {
  it("names the table after the URL-decoded log ID, non-word characters as underscores", () => {
    assert.equal(
      tableForLogName("projects/p/logs/cloudaudit.googleapis.com%2Factivity"),
      "cloudaudit_googleapis_com_activity",
    );
    assert.equal(
      tableForLogName("organizations/123/logs/cloudaudit.googleapis.com%2Fdata_access"),
      "cloudaudit_googleapis_com_data_access",
    );
    assert.equal(
      tableForLogName("projects/p/logs/dns.googleapis.com%2Fdns_queries"),
      "dns_googleapis_com_dns_queries",
    );
    assert.equal(tableForLogName("folders/9/logs/syslog"), "syslog");
    assert.equal(
      tableForLogName("projects/p/logs/compute.googleapis.com/vpc_flows"),
      "compute_googleapis_com_vpc_flows",
    );
  });

  it("names nothing for a logName that is not one", () => {
    assert.equal(tableForLogName("syslog"), undefined);
    assert.equal(tableForLogName("projects/p/logs/%2F%2F"), undefined);
  });
});

describe("sink field names", () => {
  it("sanitizes and lower-cases user-supplied names", () => {
    assert.equal(
      sinkFieldName("compute.googleapis.com/resource_name"),
      "compute_googleapis_com_resource_name",
    );
    assert.equal(sinkFieldName("myField"), "myfield");
    assert.equal(sinkFieldName("foo%%"), "foo__");
    assert.equal(sinkFieldName("@type"), "type");
  });

  it("names serviceData after its type", () => {
    assert.equal(
      serviceDataField("type.googleapis.com/google.iam.v1.logging.AuditData"),
      "servicedata_v1_iam",
    );
    assert.equal(
      serviceDataField("type.googleapis.com/google.cloud.bigquery.logging.v1.AuditData"),
      "servicedata_v1_bigquery",
    );
    assert.equal(serviceDataField("type.googleapis.com/google.example.Other"), undefined);
  });
});

describe("convertLogEntry", () => {
  const audit = {
    logName: "projects/p/logs/cloudaudit.googleapis.com%2Factivity",
    insertId: "a1",
    timestamp: "2024-11-19T13:12:20.942393Z",
    resource: { type: "project", labels: { project_id: "p" } },
    labels: { "authorization.k8s.io/decision": "allow" },
    protoPayload: {
      "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
      methodName: "SetIamPolicy",
      authenticationInfo: { principalEmail: "a@example.com" },
      request: { "@type": "type.googleapis.com/google.iam.v1.SetIamPolicyRequest", resource: "p" },
      response: { etag: "x" },
      metadata: { k: 1 },
      serviceData: {
        "@type": "type.googleapis.com/google.iam.v1.logging.AuditData",
        policyDelta: {
          bindingDeltas: [{ action: "ADD", role: "roles/owner", member: "user:b@example.com" }],
        },
      },
    },
    notALogEntryField: 1,
  };

  it("turns an AuditLog protoPayload into protopayload_auditlog as a sink does", () => {
    const { table, row } = convertLogEntry(audit);
    assert.equal(table, "cloudaudit_googleapis_com_activity");
    assert.deepEqual(Object.keys(row).sort(), [
      "insertId",
      "labels",
      "logName",
      "protopayload_auditlog",
      "resource",
      "timestamp",
    ]);
    assert.deepEqual(row.labels, { authorization_k8s_io_decision: "allow" });
    assert.deepEqual(row.protopayload_auditlog, {
      methodName: "SetIamPolicy",
      authenticationInfo: { principalEmail: "a@example.com" },
      requestJson: JSON.stringify(audit.protoPayload.request),
      responseJson: '{"etag":"x"}',
      metadataJson: '{"k":1}',
      servicedata_v1_iam: {
        policyDelta: {
          bindingDeltas: [{ action: "ADD", role: "roles/owner", member: "user:b@example.com" }],
        },
      },
    });
  });

  it("lower-cases jsonPayload names, and the log schema spelling restores the columns it knows", () => {
    const { table, row } = convertLogEntry({
      logName: "projects/p/logs/dns.googleapis.com%2Fdns_queries",
      jsonPayload: { queryName: "x.example.", "odd-Key": 1 },
    });
    assert.deepEqual(row.jsonPayload, { queryname: "x.example.", odd_key: 1 });
    const def = logTableDef(table);
    assert.ok(def);
    assert.deepEqual(schemaSpelling(row, def.fields).jsonPayload, { queryName: "x.example.", odd_key: 1 });
  });

  it("refuses an entry without a logName, naming what is missing", () => {
    assert.throws(
      () => convertLogEntry({ textPayload: "x" }),
      (e: unknown) => {
        assert.ok(e instanceof LogEntryError);
        assert.match(e.message, /logName/);
        return true;
      },
    );
    assert.throws(() => convertLogEntry({ logName: "syslog" }), /names no log/);
  });
});

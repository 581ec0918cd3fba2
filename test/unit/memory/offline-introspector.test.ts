import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IntrospectorBrief } from "../../../functions/src/agent/briefs.js";
import type { LogAnalystSession, SessionTurn } from "../../../functions/src/domain/log-analyst-session.js";
import type { MemoryFact } from "../../../functions/src/memory/fact.js";
import { IntrospectionSchema } from "../../../functions/src/memory/introspection.js";
import { memoryIdFor, type RecalledMemory } from "../../../functions/src/memory/memory.js";
import { generateStructured } from "../../../functions/src/model/structured.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { factTerms, introspectionFor } from "../../../functions/src/offline-model/introspector.js";
import { sessionCalls } from "../../../functions/src/offline-model/session-calls.js";
import { filteredFields } from "../../../functions/src/offline-model/sql-fields.js";

const GOOD_SQL =
  "SELECT a.protopayload_auditlog.authenticationInfo.principalEmail AS who FROM cloudaudit_googleapis_com_activity AS a " +
  "WHERE a.protopayload_auditlog.methodName = 'SetIamPolicy' AND (timestamp BETWEEN @start AND @end OR severity IN ('ERROR')) " +
  "AND CAST(a.protopayload_auditlog.status.code AS INT64) = 0 AND TIMESTAMP '2026-01-01' < timestamp ORDER BY who LIMIT 10";
const BAD_SQL = "SELECT textPayload FROM syslog WHERE REGEXP_CONTAINS(textPayload, r'(?i)xmrig'";

const transcript: SessionTurn[] = [
  { role: "user", text: "Who granted roles on prod-1, and what did the miner log?" },
  {
    role: "model",
    toolCalls: [
      { name: "log_query", args: { sql: BAD_SQL } },
      { name: "log_tables", args: { table: "syslog" } },
    ],
  },
  {
    role: "tool",
    toolResults: [
      // Out of call order on purpose: results are matched by tool name.
      { name: "log_tables", ok: true, summary: "syslog: 12 columns and nested fields." },
      {
        name: "log_query",
        ok: false,
        summary: 'Syntax error: Expected ")" but got end of script',
      },
    ],
  },
  { role: "model", toolCalls: [{ name: "log_query", args: { sql: GOOD_SQL } }] },
  { role: "tool", toolResults: [{ name: "log_query", ok: true, summary: "query: 3 row(s)" }] },
  {
    role: "model",
    toolCalls: [{ name: "log_query", args: { sql: "SELECT 1 FROM syslog WHERE host = 'x'" } }],
  },
  { role: "model", text: "Done." },
];

const session: LogAnalystSession = {
  sessionId: "s-offline",
  investigationId: "inv-1",
  agent: "log_analyst",
  request: "Who granted roles on prod-1?",
  recalledMemoryIds: [],
  transcript,
  answer: "ci@ granted roles.",
  model: "offline-playbook",
  startedAt: "2026-01-01T00:00:00.000Z",
  finishedAt: "2026-01-01T00:01:00.000Z",
};

function recalled(label: string, fact: MemoryFact): RecalledMemory {
  return { id: memoryIdFor("log_analyst", label, fact), fact };
}
const HELPFUL = recalled("h", {
  kind: "column_format",
  table: "cloudaudit_googleapis_com_activity",
  column: "protopayload_auditlog.methodName",
  format: "api_method",
});
// A column the failed query named (the schema has no syslog jsonPayload; the type would refuse it),
// so the wrong memory is about a real column the session's failed query used.
const HARMFUL = recalled("w", {
  kind: "query_shape",
  table: "syslog",
  filters: [{ column: "textPayload", test: "regexp_contains" }],
});
const UNUSED = recalled("u", {
  kind: "column_format",
  table: "compute_googleapis_com_vpc_flows",
  column: "jsonPayload.bytes_sent",
  format: "integer_as_string",
});

function context(memories = [HELPFUL, HARMFUL, UNUSED]): IntrospectorBrief {
  return {
    role: "introspector",
    session: { ...session, recalledMemoryIds: memories.map((m) => m.id) },
    recalled: memories,
    maxFacts: 8,
  };
}

describe("sessionCalls", () => {
  it("pairs calls with results by name within the next tool turn; an unanswered call counts as failed", () => {
    const calls = sessionCalls(transcript);
    assert.deepEqual(
      calls.map((c) => [c.name, c.ok]),
      [
        ["log_query", false],
        ["log_tables", true],
        ["log_query", true],
        ["log_query", false],
      ],
    );
    assert.equal(calls[3]?.summary, "no result recorded");
  });
});

describe("filteredFields", () => {
  it("reads the table and the WHERE columns, without aliases, functions, literals or keywords", () => {
    const read = filteredFields(GOOD_SQL);
    assert.deepEqual(read?.tables, ["cloudaudit_googleapis_com_activity"]);
    assert.deepEqual(read?.fields, [
      "protopayload_auditlog.methodName",
      "timestamp",
      "severity",
      "protopayload_auditlog.status.code",
    ]);
  });

  it("reads each condition's form and its CAST; a literal on the left mirrors the comparison", () => {
    assert.deepEqual(filteredFields(GOOD_SQL)?.filters, [
      { field: "protopayload_auditlog.methodName", test: "equals" },
      { field: "timestamp", test: "between" },
      { field: "severity", test: "in_list" },
      { field: "protopayload_auditlog.status.code", test: "equals", cast: "INT64" },
    ]);
    assert.deepEqual(
      filteredFields("SELECT 1 FROM syslog WHERE TIMESTAMP '2026-01-01' < timestamp")?.filters,
      [{ field: "timestamp", test: "greater_than" }],
    );
  });

  it("gives nothing for SQL it cannot lex instead of throwing", () => {
    assert.equal(filteredFields("SELECT 'unterminated"), undefined);
  });
});

describe("the offline introspector's rules", () => {
  it("writes the shape of a successful query's conditions as a typed fact, never its values or results", () => {
    const answer = introspectionFor(context());
    assert.deepEqual(answer.facts, [
      {
        kind: "query_shape",
        table: "cloudaudit_googleapis_com_activity",
        filters: [
          { column: "protopayload_auditlog.methodName", test: "equals" },
          { column: "timestamp", test: "between" },
          { column: "severity", test: "in_list" },
          { column: "protopayload_auditlog.status.code", test: "equals", cast: "INT64" },
        ],
      },
    ]);
    assert.ok(!JSON.stringify(answer.facts).includes("SetIamPolicy"), "values are not facts");
    assert.ok(!JSON.stringify(answer.facts).includes("xmrig"), "a failed query teaches no fact");
  });

  it("a query over a column the schema does not know teaches nothing: the fact type refuses it", () => {
    const unknown: SessionTurn[] = [
      {
        role: "model",
        toolCalls: [{ name: "log_query", args: { sql: "SELECT 1 FROM syslog WHERE host = 'x'" } }],
      },
      { role: "tool", toolResults: [{ name: "log_query", ok: true, summary: "query: 0 row(s)" }] },
    ];
    const brief = context([]);
    assert.deepEqual(
      introspectionFor({ ...brief, session: { ...brief.session, transcript: unknown } }).facts,
      [],
    );
  });

  it("helpful: terms used by a successful call; harmful: a field only in a failed call; others neither", () => {
    const answer = introspectionFor(context());
    assert.deepEqual(answer.helpfulMemoryIds, [HELPFUL.id]);
    assert.deepEqual(answer.harmfulMemoryIds, [HARMFUL.id]);
  });

  it("judges nothing when no memories were given, and is deterministic", () => {
    const none = introspectionFor(context([]));
    assert.deepEqual([none.helpfulMemoryIds, none.harmfulMemoryIds], [[], []]);
    assert.deepEqual(introspectionFor(context()), introspectionFor(context()));
  });

  it("factTerms names a fact's table and columns, lower-cased", () => {
    assert.deepEqual(factTerms(HELPFUL.fact), {
      all: ["cloudaudit_googleapis_com_activity", "protopayload_auditlog.methodname"],
      fields: ["protopayload_auditlog.methodname"],
    });
  });

  it("answers the introspector purpose through the Model port with schema-valid JSON", async () => {
    const model = createOfflineModel();
    const result = await generateStructured(
      model,
      { brief: context(), system: "s", messages: [{ role: "user", text: "u" }] },
      IntrospectionSchema,
    );
    assert.equal(result.calls, 1);
    assert.equal(result.model, "offline-playbook");
    assert.deepEqual(result.value, introspectionFor(context()));
  });
});

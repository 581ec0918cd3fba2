import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IntrospectorBrief } from "../../../functions/src/agent/briefs.js";
import type { LogAnalystSession, SessionTurn } from "../../../functions/src/domain/log-analyst-session.js";
import { IntrospectionSchema } from "../../../functions/src/memory/introspection.js";
import { memoryIdFor } from "../../../functions/src/memory/memory.js";
import { OFFLINE_MARK } from "../../../functions/src/model/brain.js";
import { generateStructured } from "../../../functions/src/model/structured.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { claimTerms, introspectionFor } from "../../../functions/src/offline-model/introspector.js";
import { sessionCalls } from "../../../functions/src/offline-model/session-calls.js";
import { filteredFields } from "../../../functions/src/offline-model/sql-fields.js";

const GOOD_SQL =
  "SELECT a.protopayload_auditlog.authenticationInfo.principalEmail AS who FROM cloudaudit_googleapis_com_activity AS a " +
  "WHERE a.protopayload_auditlog.methodName = 'SetIamPolicy' AND (timestamp BETWEEN @start AND @end OR severity IN ('ERROR')) " +
  "AND CAST(a.protopayload_auditlog.status.code AS INT64) = 0 AND TIMESTAMP '2026-01-01' < timestamp ORDER BY who LIMIT 10";
const BAD_SQL = "SELECT message FROM syslog WHERE jsonPayload.message LIKE '%xmrig%'";

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
        summary: 'Binder Error: Referenced column "jsonPayload.message" not found',
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

const HELPFUL = {
  id: memoryIdFor("log_analyst", "x", "h"),
  claim: "In cloudaudit_googleapis_com_activity, `protopayload_auditlog.methodName` holds the API method.",
};
const HARMFUL = {
  id: memoryIdFor("log_analyst", "x", "w"),
  claim: "Syslog keeps the process output in jsonPayload.message.",
};
const UNUSED = {
  id: memoryIdFor("log_analyst", "x", "u"),
  claim: "VPC flows carry bytes in jsonPayload.bytes_sent.",
};
const VAGUE = { id: memoryIdFor("log_analyst", "x", "v"), claim: "Be careful with time windows." };

function context(recalled = [HELPFUL, HARMFUL, UNUSED, VAGUE]): IntrospectorBrief {
  return {
    role: "introspector",
    session: { ...session, recalledMemoryIds: recalled.map((m) => m.id) },
    recalled,
    maxClaims: 8,
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
    assert.deepEqual(filteredFields(GOOD_SQL), {
      tables: ["cloudaudit_googleapis_com_activity"],
      fields: [
        "protopayload_auditlog.methodName",
        "timestamp",
        "severity",
        "protopayload_auditlog.status.code",
      ],
    });
  });

  it("gives nothing for SQL it cannot lex instead of throwing", () => {
    assert.equal(filteredFields("SELECT 'unterminated"), undefined);
  });
});

describe("the offline introspector's rules", () => {
  it("claims the fields a successful query filtered on and the tables a schema lookup found, marked as rule output", () => {
    const answer = introspectionFor(context());
    assert.deepEqual(answer.claims, [
      `${OFFLINE_MARK} Table \`syslog\` exists in the log dataset; log_tables lists its fields.`,
      `${OFFLINE_MARK} In table \`cloudaudit_googleapis_com_activity\`, filtering on \`protopayload_auditlog.methodName\`, \`timestamp\`, \`severity\`, \`protopayload_auditlog.status.code\` works: a query with these conditions ran without error.`,
    ]);
    assert.ok(!answer.claims.some((c) => c.includes("3 row")), "results are not claims");
    assert.ok(
      !answer.claims.some((c) => c.includes("jsonPayload.message")),
      "a failed query teaches no claim",
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

  it("claimTerms finds backticked names, dotted paths and snake_case names", () => {
    assert.deepEqual(claimTerms(HELPFUL.claim), {
      all: [
        "protopayload_auditlog.methodname",
        "cloudaudit_googleapis_com_activity",
        "protopayload_auditlog",
      ],
      fields: ["protopayload_auditlog.methodname"],
    });
    assert.deepEqual(claimTerms(VAGUE.claim), { all: [], fields: [] });
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

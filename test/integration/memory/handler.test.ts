import assert from "node:assert/strict";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import type { LogAnalystSession, SessionTurn } from "../../../functions/src/domain/log-analyst-session.js";
import type { MemoryFact } from "../../../functions/src/memory/fact.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { session, snapshotMemories } from "./support.js";

/**
 * The memoryIntrospector entry point of functions/src/index.ts under functions-framework's
 * test server, fed Pub/Sub push bodies the way the agent-sessions subscription delivers
 * them, with the offline model judging (FERRET_MODEL_PROVIDER=offline) and Firestore and
 * Pub/Sub on the emulators.
 */
const projectId = uniqueProjectId("mem-handler");
const SPACE = "offline-hash-v1";

type Modules = {
  testing: typeof import("@google-cloud/functions-framework/testing");
  client: typeof import("../../../functions/src/adapters/firestore/client.js");
  memoryStore: typeof import("../../../functions/src/adapters/firestore/memory-store.js");
  memory: typeof import("../../../functions/src/memory/memory.js");
  pubsub: typeof import("../../../functions/src/adapters/pubsub/client.js");
  pull: typeof import("../../../functions/src/adapters/pubsub/pull.js");
  topology: typeof import("../../../functions/src/local/pubsub-setup.js");
  hash: typeof import("../../../functions/src/model/hash-embedding.js");
};

const FAILED_SQL = "SELECT textPayload FROM syslog WHERE REGEXP_CONTAINS(textPayload, r'(?i)xmrig'";
const GOOD_SQL =
  "SELECT protopayload_auditlog.authenticationInfo.principalEmail FROM cloudaudit_googleapis_com_activity WHERE protopayload_auditlog.methodName = 'SetIamPolicy'";
const transcript: SessionTurn[] = [
  { role: "user", text: "What did the miner log, and who changed IAM?" },
  { role: "model", toolCalls: [{ name: "log_query", args: { sql: FAILED_SQL } }] },
  {
    role: "tool",
    toolResults: [
      { name: "log_query", ok: false, summary: 'Syntax error: Expected ")" but got end of script' },
    ],
  },
  { role: "model", toolCalls: [{ name: "log_query", args: { sql: GOOD_SQL } }] },
  { role: "tool", toolResults: [{ name: "log_query", ok: true, summary: "query: 1 row(s)" }] },
  { role: "model", text: "One principal changed IAM; the syslog query did not parse." },
];

const METHOD_FACT: MemoryFact = {
  kind: "column_format",
  table: "cloudaudit_googleapis_com_activity",
  column: "protopayload_auditlog.methodName",
  format: "api_method",
};
/** What the failed query tried: a memory that led there is judged harmful by the offline rules. */
const SYSLOG_REGEXP_FACT: MemoryFact = {
  kind: "query_shape",
  table: "syslog",
  filters: [{ column: "textPayload", test: "regexp_contains" }],
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("memoryIntrospector under functions-framework", { timeout: 120_000 }, () => {
  let m: Modules;
  let server: Server;
  let url: string;
  let db: Firestore;
  let store: InstanceType<Modules["memoryStore"]["FirestoreMemoryStore"]>;
  let pushes = 0;

  /** One push delivery; returns the HTTP status the framework answered with. */
  async function push(data: string, messageId = `m-${++pushes}`): Promise<number> {
    const res = await fetch(`${url}/projects/${projectId}/topics/agent-sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        message: { data, messageId, publishTime: new Date().toISOString() },
        subscription: `projects/${projectId}/subscriptions/agent-sessions-push`,
      }),
    });
    await res.text();
    return res.status;
  }
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

  /** A memory embedded as `about` (the request it should be recalled for). */
  async function seed(fact: MemoryFact, about: string): Promise<string> {
    const sessionId = `seed:${JSON.stringify(fact)}:${about}`;
    const id = m.memory.memoryIdFor("log_analyst", sessionId, fact);
    const outcome = await store.applyIntrospection({
      sessionId,
      investigationId: "inv-seed",
      scope: "log_analyst",
      created: [{ id, fact, embedding: m.hash.hashEmbedding(about) }],
      embeddingSpace: SPACE,
      helpful: [],
      harmful: [],
      model: "seed",
      at: new Date("2026-01-01T00:00:00.000Z"),
    });
    assert.deepEqual(outcome.created, [id], `seeded ${sessionId}`);
    return id;
  }

  before(async () => {
    await ensureEmulators();
    Object.assign(process.env, {
      GOOGLE_CLOUD_PROJECT: projectId,
      FERRET_MODEL_PROVIDER: "offline",
      FERRET_LOG_LEVEL: "CRITICAL",
      METADATA_SERVER_DETECTION: "none",
    });
    m = {
      testing: await import("@google-cloud/functions-framework/testing"),
      client: await import("../../../functions/src/adapters/firestore/client.js"),
      memoryStore: await import("../../../functions/src/adapters/firestore/memory-store.js"),
      memory: await import("../../../functions/src/memory/memory.js"),
      pubsub: await import("../../../functions/src/adapters/pubsub/client.js"),
      pull: await import("../../../functions/src/adapters/pubsub/pull.js"),
      topology: await import("../../../functions/src/local/pubsub-setup.js"),
      hash: await import("../../../functions/src/model/hash-embedding.js"),
    };
    await import("../../../functions/src/index.js");
    server = m.testing.getTestServer("memoryIntrospector");
    url = await listen(server);
    // The dead-letter topics and their hold subscriptions, as terraform/pubsub.tf creates them.
    await m.topology.ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
    db = m.client.createFirestore({ projectId });
    store = new m.memoryStore.FirestoreMemoryStore(db);
  });

  after(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await db?.terminate();
  });

  test("one session: offline rules score helpful +1 and harmful −1, learn typed facts; the redelivery changes nothing", async () => {
    const request = "What did the miner log, and who changed IAM?";
    const helpful = await seed(METHOD_FACT, request);
    const harmful = await seed(SYSLOG_REGEXP_FACT, request);
    const unused = await seed(
      {
        kind: "column_format",
        table: "compute_googleapis_com_vpc_flows",
        column: "jsonPayload.bytes_sent",
        format: "integer_as_string",
      },
      request,
    );
    const unusedBefore = (await snapshotMemories(db))[unused];
    const s: LogAnalystSession = session({
      sessionId: "inv-9/step-1/log_analysis/1",
      request,
      transcript,
      recalledMemoryIds: [helpful, harmful, unused],
    });

    assert.equal(await push(encode(s)), 204);
    assert.equal((await store.get(helpful))?.score, 1);
    assert.equal((await store.get(harmful))?.score, -1);
    assert.deepEqual((await snapshotMemories(db))[unused], unusedBefore, "unused: untouched");
    const learned = (await store.list({ limit: 100 })).filter((x) => x.source.sessionId === s.sessionId);
    assert.deepEqual(
      learned.map((x) => x.fact),
      [
        {
          kind: "query_shape",
          table: "cloudaudit_googleapis_com_activity",
          filters: [{ column: "protopayload_auditlog.methodName", test: "equals" }],
        },
      ],
    );
    assert.equal(learned[0]?.embeddingSpace, SPACE);

    const applied = await snapshotMemories(db);
    assert.equal(await push(encode(s), "redelivered"), 204);
    assert.deepEqual(await snapshotMemories(db), applied, "the same session delivered twice scores once");
  });

  test("the same session delivered twice at once scores once", async () => {
    const request = "Who called SetIamPolicy?";
    const helpful = await seed(METHOD_FACT, request);
    const s = session({
      sessionId: "inv-9/step-2/log_analysis/1",
      request,
      transcript,
      recalledMemoryIds: [helpful],
    });
    const statuses = await Promise.all([push(encode(s), "a"), push(encode(s), "b"), push(encode(s), "c")]);
    assert.deepEqual(statuses, [204, 204, 204]);
    assert.equal((await store.get(helpful))?.score, 1);
  });

  test("judged harmful by four sessions through the handler, the memory is deleted", async () => {
    const request = "What did the miner write to syslog?";
    const wrong = await seed(SYSLOG_REGEXP_FACT, request);
    for (let n = 1; n <= 4; n++) {
      const s = session({
        sessionId: `inv-9/step-3/log_analysis/${n}`,
        request,
        transcript,
        recalledMemoryIds: [wrong],
      });
      assert.equal(await push(encode(s)), 204);
      assert.equal((await store.get(wrong))?.score, n < 4 ? -n : undefined);
    }
    assert.equal((await db.doc(`memories/${wrong}`).get()).exists, false);
  });

  test("messages that can never succeed are dead-lettered with the reason and acknowledged", async () => {
    const notASession = { ...session({ sessionId: "bad-1" }), agent: "planner" };
    assert.equal(await push(encode(notASession), "bad-agent"), 204);
    assert.equal(await push(Buffer.from("{not json").toString("base64"), "bad-json"), 204);
    const client = m.pubsub.createPubSub({ projectId });
    const dead = await m.pull.pullMessages(client, m.topology.deadLetterSubscriptionName("agent-sessions"), {
      maxMessages: 2,
      timeoutMs: 10_000,
    });
    await client.close();
    const reasons = dead.map((d) => JSON.parse(d.data) as { reason: string; originalMessageId: string });
    assert.deepEqual(reasons.map((r) => r.originalMessageId).sort(), ["bad-agent", "bad-json"]);
    const byId = Object.fromEntries(reasons.map((r) => [r.originalMessageId, r.reason]));
    assert.match(byId["bad-agent"] ?? "", /^invalid_input: not an agent session: agent/);
    assert.match(byId["bad-json"] ?? "", /^invalid_input: the message data is not valid JSON/);
    assert.equal(await store.wasIntrospected("bad-1"), false);
  });
});

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { openDuckDbWarehouse } from "../../../functions/src/adapters/duckdb/warehouse.js";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreMemoryStore } from "../../../functions/src/adapters/firestore/memory-store.js";
import type { LogAnalystSession } from "../../../functions/src/domain/log-analyst-session.js";
import { factText, type MemoryFact } from "../../../functions/src/memory/fact.js";
import { introspectSession } from "../../../functions/src/memory/introspect.js";
import { memoryIdFor } from "../../../functions/src/memory/memory.js";
import { createRecall } from "../../../functions/src/memory/recall.js";
import { hashEmbedding } from "../../../functions/src/model/hash-embedding.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { LogWarehouse } from "../../../functions/src/ports/log-warehouse.js";
import { loadRunbooks } from "../../../functions/src/sql/runbooks.js";
import { createLogAnalysisTool } from "../../../functions/src/tools/log-analysis.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";
import { splitFences } from "../../unit/prompts/support.js";
import { CRYPTO_LOGS, scenarioContext } from "../../unit/tools/context.js";

/**
 * The memory loop through the real log_analysis sub-agent: createRecall on the Firestore
 * emulator feeds the sub-agent, whose prompt must carry the recalled memories with their
 * ids (asserted on the scripted model's recorded request); the session it publishes feeds
 * the introspector, which scores exactly those memories.
 */
const SPACE = "scripted-hash";
const QUESTION = "Which external IPs did VM etl-worker-1 send traffic to, and on which ports?";
// One word changed: cosine similarity of the hashed-token embeddings is just above 0.9.
const NEAR = "Which external IPs did VM etl-worker-2 send traffic to, and on which ports?";

let db: Firestore;
let store: FirestoreMemoryStore;
let warehouse: LogWarehouse;

before(async () => {
  await ensureEmulators();
  db = createFirestore({ projectId: uniqueProjectId("mem-log-analyst") });
  store = new FirestoreMemoryStore(db);
  warehouse = await openDuckDbWarehouse({ dir: CRYPTO_LOGS });
});
after(async () => {
  await warehouse.close();
  await db.terminate();
});

/** A memory embedded as `about`: the hash embedding is a stand-in for "about the same thing". */
async function remember(fact: MemoryFact, about: string): Promise<string> {
  const sessionId = `seed:${JSON.stringify(fact)}`;
  const id = memoryIdFor("log_analyst", sessionId, fact);
  const outcome = await store.applyIntrospection({
    sessionId,
    investigationId: "inv-seed",
    scope: "log_analyst",
    created: [{ id, fact, embedding: hashEmbedding(about) }],
    embeddingSpace: SPACE,
    helpful: [],
    harmful: [],
    model: "seed",
    at: new Date("2026-01-01T00:00:00.000Z"),
  });
  assert.deepEqual(outcome.created, [id]);
  return id;
}

describe("createRecall → log_analysis sub-agent → agent session → introspector", () => {
  test("the sub-agent's prompt carries the recalled memories with ids; the session names them; the introspector scores them", async () => {
    const exactFact: MemoryFact = {
      kind: "query_shape",
      table: "compute_googleapis_com_vpc_flows",
      filters: [{ column: "jsonPayload.src_instance.vm_name", test: "equals" }],
    };
    const nearFact: MemoryFact = {
      kind: "query_shape",
      table: "compute_googleapis_com_vpc_flows",
      filters: [{ column: "jsonPayload.connection.dest_port", test: "equals" }],
    };
    const exact = await remember(exactFact, QUESTION);
    const near = await remember(nearFact, NEAR);
    await remember(
      { kind: "column_format", table: "syslog", column: "textPayload", format: "raw_text_line" },
      "What did the miner write to syslog?",
    );

    const model = new ScriptedModel({
      log_analyst: [
        {
          json: {
            outcome: "answered",
            summary: "etl-worker-1 sent most traffic to 203.0.113.88 on 3333.",
            facts: ["93 flows etl-worker-1 → 203.0.113.88:3333"],
            iocs: [{ type: "ip", value: "203.0.113.88", context: "pool" }],
          },
        },
      ],
      introspector: [{ json: { facts: [], helpfulMemoryIds: [exact], harmfulMemoryIds: [] } }],
    });
    const recall = createRecall({
      model,
      store,
      settings: { minSimilarity: 0.8, maxRecalled: 32 },
      embeddingSpace: SPACE,
      now: () => new Date("2026-02-01T00:00:00.000Z"),
    });
    const sessions: LogAnalystSession[] = [];
    const tool = await createLogAnalysisTool({
      warehouse,
      runbooks: loadRunbooks(),
      model,
      recall,
      publishSession: async (s) => {
        sessions.push(s);
      },
      now: () => new Date("2025-06-12T09:00:00.000Z"),
    });
    const registry = createToolRegistry([tool]);
    const out = await registry.run(
      "log_analysis",
      { request: QUESTION },
      { ...scenarioContext(), stepId: "flows-remote", toolCallId: "call-1" },
    );
    assert.equal(out.ok, true);

    // What the sub-agent's model was sent: the two similar memories, nearest first, ids included, fenced.
    const expected = [
      { id: exact, fact: factText(exactFact) },
      { id: near, fact: factText(nearFact) },
    ];
    const [first] = model.requestsFor("log_analyst");
    const prompt = first?.messages[0];
    assert.ok(prompt?.role === "user");
    const fence = splitFences(prompt.text).fences.find((f) => f.kind === "recalled_memories");
    assert.ok(fence, "the memories are fenced as data");
    assert.deepEqual(JSON.parse(fence.body), expected);
    assert.deepEqual(model.embedRequests[0], { texts: [QUESTION], task: "RETRIEVAL_QUERY", dimensions: 768 });

    // The published session names exactly the recalled ids, for the introspector to judge.
    assert.equal(sessions.length, 1);
    const session = sessions[0] as LogAnalystSession;
    assert.equal(session.request, QUESTION);
    assert.deepEqual(session.recalledMemoryIds, [exact, near]);
    assert.equal((await store.get(exact))?.useCount, 1);

    const report = await introspectSession(session, {
      model,
      store,
      embeddingSpace: SPACE,
      logger: silentLogger,
      now: () => new Date("2026-02-02T00:00:00.000Z"),
    });
    assert.deepEqual(report.raised, [exact]);
    assert.equal((await store.get(exact))?.score, 1);
    assert.equal((await store.get(near))?.score, 0, "recalled but not judged: untouched score");
    const [judged] = model.requestsFor("introspector");
    const user = judged?.messages[0];
    assert.ok(user?.role === "user");
    const shown = splitFences(user.text).fences.find((f) => f.kind === "provided_memories");
    assert.deepEqual(JSON.parse(shown?.body ?? "null"), expected);
  });
});

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Runtime } from "../../../functions/src/entry/runtime.js";
import type { MemoryFact } from "../../../functions/src/memory/fact.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { scenarioContext } from "../../unit/tools/context.js";

/**
 * The composition root's wiring, not a hand-built one: a runtime from buildRuntime (offline
 * model, the cryptomining logs, the emulators) must give log_analysis a recall backed by the
 * runtime's memory store and publish its sessions to agent-sessions.
 */
const projectId = uniqueProjectId("mem-compose");
const REQUEST = "Which external IPs did VM etl-worker-1 send traffic to, and on which ports?";

type Modules = {
  compose: typeof import("../../../functions/src/entry/compose.js");
  memory: typeof import("../../../functions/src/memory/memory.js");
  hash: typeof import("../../../functions/src/model/hash-embedding.js");
  pubsub: typeof import("../../../functions/src/adapters/pubsub/client.js");
  pull: typeof import("../../../functions/src/adapters/pubsub/pull.js");
  topology: typeof import("../../../functions/src/local/pubsub-setup.js");
};

let m: Modules;
let rt: Runtime;

before(async () => {
  await ensureEmulators();
  m = {
    compose: await import("../../../functions/src/entry/compose.js"),
    memory: await import("../../../functions/src/memory/memory.js"),
    hash: await import("../../../functions/src/model/hash-embedding.js"),
    pubsub: await import("../../../functions/src/adapters/pubsub/client.js"),
    pull: await import("../../../functions/src/adapters/pubsub/pull.js"),
    topology: await import("../../../functions/src/local/pubsub-setup.js"),
  };
  await m.topology.ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
  const client = m.pubsub.createPubSub({ projectId });
  await client.topic("agent-sessions").createSubscription("agent-sessions-probe");
  await client.close();
  rt = await m.compose.buildRuntime({
    ...process.env,
    GOOGLE_CLOUD_PROJECT: projectId,
    FERRET_MODEL_PROVIDER: "offline",
    FERRET_DUCKDB_DIR: "examples/scenarios/cryptomining/logs",
    FERRET_LOG_LEVEL: "CRITICAL",
    METADATA_SERVER_DETECTION: "none",
  });
});

after(async () => {
  await (rt?.bus as { close?: () => Promise<void> } | undefined)?.close?.();
});

test("buildRuntime: log_analysis recalls from the runtime's memory store and publishes its session", async () => {
  assert.ok(rt.memories, "the runtime has a memory store");
  const fact: MemoryFact = {
    kind: "query_shape",
    table: "compute_googleapis_com_vpc_flows",
    filters: [{ column: "jsonPayload.src_instance.vm_name", test: "equals" }],
  };
  const id = m.memory.memoryIdFor("log_analyst", "seed", fact);
  await rt.memories.applyIntrospection({
    sessionId: "seed",
    investigationId: "inv-seed",
    scope: "log_analyst",
    // Embedded as the request: the hash embedding stands in for "about the same thing".
    created: [
      { id, fact: { ...fact, filters: [...fact.filters] }, embedding: m.hash.hashEmbedding(REQUEST) },
    ],
    embeddingSpace: "offline-hash-v1",
    helpful: [],
    harmful: [],
    model: "seed",
    at: new Date("2026-01-01T00:00:00.000Z"),
  });

  const out = await rt.registry.run(
    "log_analysis",
    { request: REQUEST },
    { ...scenarioContext(), stepId: "egress-top", toolCallId: "call-1" },
  );
  assert.equal(out.ok, true, out.summary);
  const data = out.data as { recalledMemoryIds?: unknown };
  assert.deepEqual(data.recalledMemoryIds, [id], "the seeded memory went into the sub-agent's prompt");
  const used = await rt.memories.get(id);
  assert.equal(used?.useCount, 1);

  const client = m.pubsub.createPubSub({ projectId });
  const published = await m.pull.pullMessages(client, "agent-sessions-probe", {
    maxMessages: 1,
    timeoutMs: 15_000,
  });
  await client.close();
  assert.equal(published.length, 1, "the session was published to agent-sessions");
  const session = JSON.parse(published[0]?.data ?? "{}") as { request: string; recalledMemoryIds: string[] };
  assert.equal(session.request, REQUEST);
  assert.deepEqual(session.recalledMemoryIds, [id]);
  assert.equal(published[0]?.attributes.investigationId, "inv-test");
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Memory, memoryIdFor } from "../../../functions/src/memory/memory.js";
import { createRecall } from "../../../functions/src/memory/recall.js";
import type { MemorySearch, MemoryStore } from "../../../functions/src/memory/store.js";
import { createLogger, type LogSink } from "../../../functions/src/platform/logger.js";
import { sampleFact } from "../../helpers/memory-facts.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

function memory(label: string, space = "gemini:gemini-embedding-001"): Memory {
  const fact = sampleFact(label);
  return {
    id: memoryIdFor("log_analyst", `s:${label}`, fact),
    scope: "log_analyst",
    fact,
    embedding: new Array(768).fill(0),
    embeddingSpace: space,
    score: 0,
    useCount: 0,
    source: { sessionId: "s", investigationId: "inv-1" },
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
}

class FakeStore implements Pick<MemoryStore, "search" | "touch"> {
  searches: MemorySearch[] = [];
  touched: Array<{ ids: string[]; at: string }> = [];
  constructor(
    private readonly hits: Memory[],
    private readonly fail?: { search?: Error; touch?: Error },
  ) {}
  async search(query: MemorySearch) {
    this.searches.push(query);
    if (this.fail?.search) throw this.fail.search;
    return this.hits.map((m, i) => ({ memory: m, similarity: 0.95 - i * 0.01 }));
  }
  async touch(ids: readonly string[], at: Date) {
    this.touched.push({ ids: [...ids], at: at.toISOString() });
    if (this.fail?.touch) throw this.fail.touch;
  }
}

function capture(): { lines: Array<Record<string, unknown>>; sink: LogSink } {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, sink: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) } };
}

const settings = { minSimilarity: 0.8, maxRecalled: 32 };
const now = () => new Date("2026-05-01T12:00:00.000Z");

describe("createRecall", () => {
  it("embeds the request as a retrieval query at 768 dimensions, searches the scope, returns id and fact, marks them used", async () => {
    const model = new ScriptedModel([]);
    const hits = [memory("In syslog, host holds the VM name."), memory("methodName holds the API method.")];
    const store = new FakeStore(hits);
    const recall = createRecall({
      model,
      store,
      settings,
      embeddingSpace: "gemini:gemini-embedding-001",
      now,
    });
    const recalled = await recall("Which VM wrote these syslog lines?");
    assert.deepEqual(
      recalled,
      hits.map((m) => ({ id: m.id, fact: m.fact })),
    );
    assert.deepEqual(model.embedRequests, [
      { texts: ["Which VM wrote these syslog lines?"], task: "RETRIEVAL_QUERY", dimensions: 768 },
    ]);
    assert.equal(store.searches.length, 1);
    assert.equal(store.searches[0]?.scope, "log_analyst");
    assert.equal(
      store.searches[0]?.minSimilarity,
      0.8,
      "similarity goes to the port; the adapter makes it a distance",
    );
    assert.equal(store.searches[0]?.limit, 32);
    // Filtered by the store before the nearest K are taken, not after.
    assert.equal(store.searches[0]?.embeddingSpace, "gemini:gemini-embedding-001");
    assert.equal(store.searches[0]?.vector.length, 768);
    assert.deepEqual(store.touched, [{ ids: hits.map((m) => m.id), at: "2026-05-01T12:00:00.000Z" }]);
  });

  it("passes the configured threshold and limit through", async () => {
    const store = new FakeStore([]);
    const recall = createRecall({
      model: new ScriptedModel([]),
      store,
      settings: { minSimilarity: 0.9, maxRecalled: 5 },
      embeddingSpace: "x",
      scope: "other_agent",
    });
    assert.deepEqual(await recall("anything at all"), []);
    assert.equal(store.searches[0]?.minSimilarity, 0.9);
    assert.equal(store.searches[0]?.limit, 5);
    assert.equal(store.searches[0]?.scope, "other_agent");
    assert.deepEqual(store.touched, [], "nothing recalled, nothing touched");
  });

  it("maxRecalled 0 turns recall off without embedding or searching", async () => {
    const model = new ScriptedModel([]);
    const store = new FakeStore([memory("x")]);
    const recall = createRecall({
      model,
      store,
      settings: { minSimilarity: 0.8, maxRecalled: 0 },
      embeddingSpace: "x",
    });
    assert.deepEqual(await recall("a request"), []);
    assert.equal(model.embedRequests.length, 0);
    assert.equal(store.searches.length, 0);
  });

  it("skips memories embedded in another vector space, and says so", async () => {
    const { lines, sink } = capture();
    const ours = memory("ours", "gemini:gemini-embedding-001");
    const theirs = memory("theirs", "offline-hash-v1");
    const recall = createRecall({
      model: new ScriptedModel([]),
      store: new FakeStore([theirs, ours]),
      settings,
      embeddingSpace: "gemini:gemini-embedding-001",
      logger: createLogger({ sink }),
    });
    assert.deepEqual(await recall("a request"), [{ id: ours.id, fact: ours.fact }]);
    assert.ok(lines.some((l) => l.message === "memories embedded by another model were skipped"));
  });

  it("a failing search means no memories, not a failed session", async () => {
    const { lines, sink } = capture();
    const store = new FakeStore([], { search: new Error("Firestore unavailable") });
    const recall = createRecall({
      model: new ScriptedModel([]),
      store,
      settings,
      embeddingSpace: "x",
      logger: createLogger({ sink }),
    });
    assert.deepEqual(await recall("a request"), []);
    const warning = lines.find(
      (l) => l.message === "memory recall failed; the session runs without memories",
    );
    assert.equal(warning?.error, "Firestore unavailable");
  });

  it("a failing embedding means no memories too", async () => {
    const model = new ScriptedModel([], {
      embed: () => {
        throw new Error("quota");
      },
    });
    const store = new FakeStore([memory("x")]);
    const recall = createRecall({ model, store, settings, embeddingSpace: "x" });
    assert.deepEqual(await recall("a request"), []);
    assert.equal(store.searches.length, 0);
  });

  it("memories found are still returned when marking them used fails", async () => {
    const m = memory("kept");
    const recall = createRecall({
      model: new ScriptedModel([]),
      store: new FakeStore([m], { touch: new Error("contention") }),
      settings,
      embeddingSpace: "gemini:gemini-embedding-001",
    });
    assert.deepEqual(await recall("a request"), [{ id: m.id, fact: m.fact }]);
  });
});

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreMemoryStore } from "../../../functions/src/adapters/firestore/memory-store.js";
import { InvalidInputError, StorageError } from "../../../functions/src/domain/errors.js";
import { type MemoryId, memoryIdFor } from "../../../functions/src/memory/memory.js";
import type { IntrospectionWrite } from "../../../functions/src/memory/store.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { atSimilarity, axis, SPACE, seedMemory, snapshotMemories } from "./support.js";

/** Each describe gets its own project, so their memories never meet. */
async function freshStore(prefix: string): Promise<{ db: Firestore; store: FirestoreMemoryStore }> {
  const db = createFirestore({ projectId: uniqueProjectId(prefix) });
  return { db, store: new FirestoreMemoryStore(db) };
}

const dbs: Firestore[] = [];
before(async () => {
  await ensureEmulators();
});
after(async () => {
  await Promise.all(dbs.map((db) => db.terminate()));
});

function judgement(
  sessionId: string,
  judged: { helpful?: MemoryId[]; harmful?: MemoryId[] },
  at = new Date("2026-02-01T00:00:00.000Z"),
): IntrospectionWrite {
  return {
    sessionId,
    investigationId: "inv-1",
    scope: "log_analyst",
    request: "r",
    created: [],
    embeddingSpace: SPACE,
    helpful: judged.helpful ?? [],
    harmful: judged.harmful ?? [],
    model: "test",
    at,
  };
}

describe("search: findNearest with COSINE, similarity ≥ min means distance ≤ 1 − min", () => {
  let store: FirestoreMemoryStore;
  const ids: Record<string, MemoryId> = {};

  before(async () => {
    const fresh = await freshStore("mem-threshold");
    dbs.push(fresh.db);
    store = fresh.store;
    const eps = 1e-3;
    for (const [name, sim] of [
      ["s0.90", 0.9],
      ["s0.80+", 0.8 + eps],
      ["s0.80-", 0.8 - eps],
      ["s0.70", 0.7],
    ] as const) {
      ids[name] = await seedMemory(store, `claim at ${name}`, atSimilarity(sim, 1));
    }
    // Nearer than all of them, but another agent's.
    ids.other = await seedMemory(store, "another scope's claim", atSimilarity(0.99, 2), {
      scope: "other_agent",
    });
  });

  test("the default 0.8 admits 0.9 and 0.8+ε, in order, and nothing below", async () => {
    const hits = await store.search({
      scope: "log_analyst",
      embeddingSpace: SPACE,
      vector: axis(0),
      minSimilarity: 0.8,
      limit: 32,
    });
    assert.deepEqual(
      hits.map((h) => h.memory.id),
      [ids["s0.90"], ids["s0.80+"]],
    );
    assert.ok(Math.abs((hits[0]?.similarity ?? 0) - 0.9) < 1e-9, `similarity ${hits[0]?.similarity}`);
    assert.ok(Math.abs((hits[1]?.similarity ?? 0) - 0.801) < 1e-9, `similarity ${hits[1]?.similarity}`);
    assert.equal(hits[0]?.memory.claim, "claim at s0.90");
    assert.equal(hits[0]?.memory.embedding.length, 768);
  });

  test("the threshold is configurable: 0.75 adds 0.8−ε, 0.95 admits none, 0 admits the whole scope", async () => {
    const at = async (minSimilarity: number) =>
      (
        await store.search({
          scope: "log_analyst",
          embeddingSpace: SPACE,
          vector: axis(0),
          minSimilarity,
          limit: 32,
        })
      ).map((h) => h.memory.id);
    assert.deepEqual(await at(0.75), [ids["s0.90"], ids["s0.80+"], ids["s0.80-"]]);
    assert.deepEqual(await at(0.95), []);
    assert.deepEqual(await at(0), [ids["s0.90"], ids["s0.80+"], ids["s0.80-"], ids["s0.70"]]);
  });

  test("the seed's bug for contrast: 0.8 taken as a distance would be similarity ≥ 0.2", async () => {
    const hits = await store.search({
      scope: "log_analyst",
      embeddingSpace: SPACE,
      vector: axis(0),
      minSimilarity: 0.2,
      limit: 32,
    });
    assert.equal(hits.length, 4, "every memory of the scope, including the one at 0.7");
  });

  test("the scope filter keeps other agents' memories out even when they are nearest", async () => {
    const hits = await store.search({
      scope: "other_agent",
      embeddingSpace: SPACE,
      vector: axis(0),
      minSimilarity: 0.8,
      limit: 32,
    });
    assert.deepEqual(
      hits.map((h) => h.memory.id),
      [ids.other],
    );
  });

  test("a vector of the wrong size is refused before Firestore sees it", async () => {
    await assert.rejects(
      store.search({
        scope: "log_analyst",
        embeddingSpace: SPACE,
        vector: [1, 0, 0],
        minSimilarity: 0.8,
        limit: 3,
      }),
      InvalidInputError,
    );
    assert.deepEqual(
      await store.search({
        scope: "log_analyst",
        embeddingSpace: SPACE,
        vector: axis(0),
        minSimilarity: 0.8,
        limit: 0,
      }),
      [],
    );
  });
});

describe("search: at most `limit`, the nearest ones", () => {
  test("40 memories above the threshold, limit 32: the 32 nearest, nearest first", async () => {
    const { db, store } = await freshStore("mem-limit");
    dbs.push(db);
    const sims = Array.from({ length: 40 }, (_, i) => 0.81 + i * 0.0045); // 0.81 … 0.9855
    const ids = await Promise.all(
      sims.map((s, i) => seedMemory(store, `claim ${i}`, atSimilarity(s, 1 + (i % 5)))),
    );
    const hits = await store.search({
      scope: "log_analyst",
      embeddingSpace: SPACE,
      vector: axis(0),
      minSimilarity: 0.8,
      limit: 32,
    });
    assert.equal(hits.length, 32);
    const expected = ids.map((id, i) => ({ id, s: sims[i] as number })).sort((a, b) => b.s - a.s);
    assert.deepEqual(
      hits.map((h) => h.memory.id),
      expected.slice(0, 32).map((e) => e.id),
    );
    for (const [i, hit] of hits.entries()) assert.ok(Math.abs(hit.similarity - (expected[i]?.s ?? 0)) < 1e-9);
  });
});

describe("touch, get, list, delete", () => {
  let db: Firestore;
  let store: FirestoreMemoryStore;
  before(async () => {
    ({ db, store } = await freshStore("mem-crud"));
    dbs.push(db);
  });

  test("touch sets lastUsedAt and counts uses, leaves updatedAt, and never recreates a deleted memory", async () => {
    const a = await seedMemory(store, "touched", axis(0));
    const gone = await seedMemory(store, "deleted before touch", axis(1));
    assert.equal(await store.delete(gone), true);
    const first = new Date("2026-03-01T00:00:00.000Z");
    await store.touch([a, gone, a], first);
    await store.touch([a], new Date("2026-03-02T00:00:00.000Z"));
    const touched = await store.get(a);
    assert.equal(touched?.useCount, 2, "a duplicate id in one call counts once");
    assert.equal(touched?.lastUsedAt, "2026-03-02T00:00:00.000Z");
    assert.equal(touched?.updatedAt, "2026-01-01T00:00:00.000Z");
    assert.equal(await store.get(gone), undefined);
    assert.equal((await db.doc(`memories/${gone}`).get()).exists, false);
  });

  test("getMany keeps the given order and skips missing and malformed ids", async () => {
    const x = await seedMemory(store, "x", axis(2));
    const y = await seedMemory(store, "y", axis(3));
    const got = await store.getMany([y, "mem_000000000000000000000000", "../escape", x]);
    assert.deepEqual(
      got.map((m) => m.id),
      [y, x],
    );
    assert.equal(await store.get("not-an-id"), undefined);
    assert.equal(await store.delete("not-an-id"), false);
  });

  test("list orders by score, highest first", async () => {
    const low = await seedMemory(store, "low", axis(4));
    const high = await seedMemory(store, "high", axis(5));
    await store.applyIntrospection(judgement("list-1", { helpful: [high], harmful: [low] }));
    const listed = await store.list({ limit: 100 });
    assert.equal(listed[0]?.id, high);
    assert.equal(listed.at(-1)?.id, low);
    assert.equal((await store.list({ limit: 1 })).length, 1);
  });

  test("a corrupt memory document is a non-retryable StorageError naming it", async () => {
    const id = await seedMemory(store, "to corrupt", axis(6));
    await db.doc(`memories/${id}`).update({ score: "high" });
    await assert.rejects(
      store.get(id),
      (e: unknown) => e instanceof StorageError && !e.retryable && e.message.includes(`memories/${id}`),
    );
  });
});

describe("applyIntrospection: scores, pruning, exactly once per session", () => {
  let db: Firestore;
  let store: FirestoreMemoryStore;
  before(async () => {
    ({ db, store } = await freshStore("mem-apply"));
    dbs.push(db);
  });

  test("harmful in four sessions: −1, −2, −3 kept, −4 deleted; helpful rises; unused untouched", async () => {
    const harmful = await seedMemory(store, "wrong: syslog has no message field", axis(0));
    const helpful = await seedMemory(store, "right: methodName holds the API method", axis(1));
    const unused = await seedMemory(store, "never judged", axis(2));
    const before = await store.get(unused);
    const scores: Array<number | undefined> = [];
    for (let n = 1; n <= 4; n++) {
      const outcome = await store.applyIntrospection(
        judgement(`s-${n}`, { helpful: [helpful], harmful: [harmful] }),
      );
      assert.equal(outcome.applied, true);
      assert.deepEqual(outcome.lowered, [harmful]);
      assert.deepEqual(outcome.raised, [helpful]);
      assert.deepEqual(outcome.deleted, n === 4 ? [harmful] : []);
      scores.push((await store.get(harmful))?.score);
    }
    assert.deepEqual(scores, [-1, -2, -3, undefined]);
    assert.equal((await db.doc(`memories/${harmful}`).get()).exists, false);
    const raised = await store.get(helpful);
    assert.equal(raised?.score, 4);
    assert.equal(raised?.updatedAt, "2026-02-01T00:00:00.000Z");
    assert.deepEqual(await store.get(unused), before, "not a field changed");
    // Judged again after deletion: reported missing, not recreated.
    const late = await store.applyIntrospection(judgement("s-5", { harmful: [harmful] }));
    assert.deepEqual(late.missing, [harmful]);
    assert.equal((await db.doc(`memories/${harmful}`).get()).exists, false);
  });

  test("the same session applied twice changes nothing the second time", async () => {
    const m = await seedMemory(store, "judged once", axis(3));
    const claim = "In syslog, the field host holds the VM name.";
    const write: IntrospectionWrite = {
      ...judgement("dup-1", { helpful: [m] }),
      created: [{ id: memoryIdFor("log_analyst", "dup-1", claim), claim }],
      embedding: axis(4),
    };
    const first = await store.applyIntrospection(write);
    assert.equal(first.applied, true);
    assert.equal(first.created.length, 1);
    assert.equal(await store.wasIntrospected("dup-1"), true);
    const snapshot = await snapshotMemories(db);
    const second = await store.applyIntrospection({ ...write, at: new Date("2027-01-01T00:00:00.000Z") });
    assert.deepEqual(second, {
      applied: false,
      created: [],
      raised: [],
      lowered: [],
      deleted: [],
      missing: [],
    });
    assert.deepEqual(await snapshotMemories(db), snapshot);
    assert.equal((await store.get(m))?.score, 1);
  });

  test("two deliveries of one session at the same moment: exactly one applies", async () => {
    const m = await seedMemory(store, "raced", axis(5));
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () => store.applyIntrospection(judgement("race-1", { helpful: [m] }))),
    );
    assert.equal(outcomes.filter((o) => o.applied).length, 1);
    assert.equal((await store.get(m))?.score, 1);
  });

  test("the audit record names what the session changed", async () => {
    const m = await seedMemory(store, "audited", axis(6));
    await store.applyIntrospection(judgement("audit/1", { harmful: [m] }));
    const records = await db.collection("memorySessions").where("sessionId", "==", "audit/1").get();
    assert.equal(records.size, 1);
    assert.deepEqual(records.docs[0]?.get("lowered"), [m]);
    assert.equal(records.docs[0]?.get("model"), "test");
    // The marker outlives any redelivery, then Firestore's TTL policy removes it.
    const record = records.docs[0];
    assert.ok(record);
    const applied = Date.parse(record.get("appliedAt") as string);
    const expireAt = (record.get("expireAt") as { toMillis(): number }).toMillis();
    assert.equal(expireAt - applied, 30 * 24 * 3_600_000);
  });

  test("invalid writes are refused before anything is written", async () => {
    await assert.rejects(
      store.applyIntrospection(judgement("bad-1", { helpful: ["mem_1" as MemoryId] })),
      InvalidInputError,
    );
    const m = await seedMemory(store, "both", axis(7));
    await assert.rejects(
      store.applyIntrospection(judgement("bad-2", { helpful: [m], harmful: [m] })),
      InvalidInputError,
    );
    await assert.rejects(
      store.applyIntrospection({
        ...judgement("bad-3", {}),
        created: [{ id: memoryIdFor("log_analyst", "bad-3", "c"), claim: "c" }],
      }),
      /768-d embedding/,
    );
    for (const id of ["bad-1", "bad-2", "bad-3"]) assert.equal(await store.wasIntrospected(id), false);
  });
});

describe("search: by embedding space, before the nearest K are taken", () => {
  test("a nearer memory of another embedding model neither shows up nor crowds out the comparable one", async () => {
    const { db, store } = await freshStore("mem-space");
    dbs.push(db);
    const foreign = await seedMemory(store, "embedded by the old model", atSimilarity(0.99, 1), {
      space: "gemini:old-embedding-model",
    });
    const own = await seedMemory(store, "embedded by the current model", atSimilarity(0.85, 2));
    const query = { scope: "log_analyst", vector: axis(0), minSimilarity: 0.8, limit: 1 } as const;

    // Each space sees only its own memories: the old model's nearer one stays in its space.
    assert.deepEqual(
      (await store.search({ ...query, embeddingSpace: "gemini:old-embedding-model" })).map(
        (h) => h.memory.id,
      ),
      [foreign],
    );
    const hits = await store.search({ ...query, embeddingSpace: SPACE });
    assert.deepEqual(
      hits.map((h) => h.memory.id),
      [own],
    );
    assert.equal(hits[0]?.memory.embeddingSpace, SPACE);
  });
});

import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { InvalidInputError } from "../../functions/src/domain/errors.js";
import type { MemoryFact } from "../../functions/src/memory/fact.js";
import { type Memory, type MemoryId, memoryIdFor } from "../../functions/src/memory/memory.js";
import type { IntrospectionWrite, MemorySearch, MemoryStore } from "../../functions/src/memory/store.js";
import { EMBEDDING_DIMENSIONS } from "../../functions/src/model/port.js";
import { sampleFact } from "../helpers/memory-facts.js";

/**
 * What every MemoryStore (vector memories) adapter does: one suite run against Firestore on
 * the emulator (test/integration/memory/memory-store.test.ts) and the in-memory store for pure
 * tests (test/helpers/memory-vector-store.ts, test/unit/store/memory-store.test.ts). Firestore's
 * own (a corrupt document, the session audit record and its TTL) stays in its own tests.
 */
export interface MemoryStoreHarness {
  name: string;
  /** A store over an empty database. */
  open(): Promise<{ store: MemoryStore; close(): Promise<void> }>;
}

const SPACE = "test-space";

const VM_NAME_FACT: MemoryFact = {
  kind: "column_format",
  table: "syslog",
  column: "labels.compute_googleapis_com_resource_name",
  format: "raw_text_line",
};

/** A unit vector whose cosine similarity to axis(0) is exactly `similarity`, in the plane of axes 0 and `plane`. */
function atSimilarity(similarity: number, plane = 1): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[0] = similarity;
  v[plane] = Math.sqrt(1 - similarity * similarity);
  return v;
}

function axis(i: number): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[i] = 1;
  return v;
}

/** Stores one memory through the port (a session of its own) and returns its id. */
async function seed(
  store: MemoryStore,
  claim: string,
  embedding: number[],
  options: { scope?: string; space?: string } = {},
): Promise<MemoryId> {
  const scope = options.scope ?? "log_analyst";
  const sessionId = `seed:${claim}`;
  const fact = sampleFact(claim);
  const id = memoryIdFor(scope, sessionId, fact);
  const outcome = await store.applyIntrospection({
    sessionId,
    investigationId: "inv-seed",
    scope,
    created: [{ id, fact, embedding }],
    embeddingSpace: options.space ?? SPACE,
    helpful: [],
    harmful: [],
    model: "seed",
    at: new Date("2026-01-01T00:00:00.000Z"),
  });
  assert.deepEqual(outcome.created, [id], `seed of ${claim}`);
  return id;
}

function judgement(
  sessionId: string,
  judged: { helpful?: MemoryId[]; harmful?: MemoryId[] },
  at = new Date("2026-02-01T00:00:00.000Z"),
): IntrospectionWrite {
  return {
    sessionId,
    investigationId: "inv-1",
    scope: "log_analyst",
    created: [],
    embeddingSpace: SPACE,
    helpful: judged.helpful ?? [],
    harmful: judged.harmful ?? [],
    model: "test",
    at,
  };
}

/** Every memory as the port reads it, by id. */
async function everything(store: MemoryStore): Promise<Record<string, Memory>> {
  return Object.fromEntries((await store.list({ limit: 1_000 })).map((m) => [m.id, m]));
}

export function memoryStoreContract(harness: MemoryStoreHarness): void {
  const closers: Array<() => Promise<void>> = [];
  const open = async () => {
    const opened = await harness.open();
    closers.push(opened.close);
    return opened.store;
  };
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  describe(`MemoryStore contract: ${harness.name}`, () => {
    describe("search: cosine similarity ≥ min (distance ≤ 1 − min), within one scope and embedding space", () => {
      async function seeded() {
        const store = await open();
        const ids: Record<string, MemoryId> = {};
        const eps = 1e-3;
        for (const [name, sim] of [
          ["s0.90", 0.9],
          ["s0.80+", 0.8 + eps],
          ["s0.80-", 0.8 - eps],
          ["s0.70", 0.7],
        ] as const) {
          ids[name] = await seed(store, `claim at ${name}`, atSimilarity(sim, 1));
        }
        // Nearer than all of them, but another agent's.
        ids.other = await seed(store, "another scope's claim", atSimilarity(0.99, 2), {
          scope: "other_agent",
        });
        const query = (minSimilarity: number, overrides: Partial<MemorySearch> = {}) =>
          store.search({
            scope: "log_analyst",
            embeddingSpace: SPACE,
            vector: axis(0),
            minSimilarity,
            limit: 32,
            ...overrides,
          });
        return { store, ids, query };
      }

      it("0.8 admits 0.9 and 0.8+ε, nearest first, with their similarity, and nothing below", async () => {
        const { ids, query } = await seeded();
        const hits = await query(0.8);
        assert.deepEqual(
          hits.map((h) => h.memory.id),
          [ids["s0.90"], ids["s0.80+"]],
        );
        assert.ok(Math.abs((hits[0]?.similarity ?? 0) - 0.9) < 1e-9, `similarity ${hits[0]?.similarity}`);
        assert.ok(Math.abs((hits[1]?.similarity ?? 0) - 0.801) < 1e-9, `similarity ${hits[1]?.similarity}`);
        assert.deepEqual(hits[0]?.memory.fact, sampleFact("claim at s0.90"));
        assert.equal(hits[0]?.memory.embedding.length, EMBEDDING_DIMENSIONS);
      });

      it("the threshold is the caller's: 0.75 adds 0.8−ε, 0.95 admits none, 0 admits the whole scope", async () => {
        const { ids, query } = await seeded();
        const at = async (min: number) => (await query(min)).map((h) => h.memory.id);
        assert.deepEqual(await at(0.75), [ids["s0.90"], ids["s0.80+"], ids["s0.80-"]]);
        assert.deepEqual(await at(0.95), []);
        assert.deepEqual(await at(0), [ids["s0.90"], ids["s0.80+"], ids["s0.80-"], ids["s0.70"]]);
        // The seed's bug for contrast: 0.8 taken as a distance would be similarity ≥ 0.2, every memory.
        assert.equal((await query(0.2)).length, 4);
      });

      it("keeps other agents' memories out even when they are nearest", async () => {
        const { ids, query } = await seeded();
        assert.deepEqual(
          (await query(0.8, { scope: "other_agent" })).map((h) => h.memory.id),
          [ids.other],
        );
      });

      it("refuses a vector of the wrong size, and answers a limit below 1 with nothing", async () => {
        const { query } = await seeded();
        await assert.rejects(query(0.8, { vector: [1, 0, 0] }), InvalidInputError);
        assert.deepEqual(await query(0.8, { limit: 0 }), []);
      });

      it("at most `limit`, the nearest ones: 40 above the threshold, limit 32", async () => {
        const store = await open();
        const sims = Array.from({ length: 40 }, (_, i) => 0.81 + i * 0.0045); // 0.81 … 0.9855
        const ids = await Promise.all(
          sims.map((s, i) => seed(store, `claim ${i}`, atSimilarity(s, 1 + (i % 5)))),
        );
        const hits = await store.search({
          scope: "log_analyst",
          embeddingSpace: SPACE,
          vector: axis(0),
          minSimilarity: 0.8,
          limit: 32,
        });
        const expected = ids.map((id, i) => ({ id, s: sims[i] ?? 0 })).sort((a, b) => b.s - a.s);
        assert.deepEqual(
          hits.map((h) => h.memory.id),
          expected.slice(0, 32).map((e) => e.id),
        );
        for (const [i, hit] of hits.entries())
          assert.ok(Math.abs(hit.similarity - (expected[i]?.s ?? 0)) < 1e-9);
      });

      it("filters by embedding space before the nearest are taken: a nearer memory of another model crowds nothing out", async () => {
        const store = await open();
        const foreign = await seed(store, "embedded by the old model", atSimilarity(0.99, 1), {
          space: "gemini:old-embedding-model",
        });
        const own = await seed(store, "embedded by the current model", atSimilarity(0.85, 2));
        const query = { scope: "log_analyst", vector: axis(0), minSimilarity: 0.8, limit: 1 } as const;
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

      it("search does not touch what it finds", async () => {
        const { store, ids, query } = await seeded();
        await query(0.8);
        const found = await store.get(ids["s0.90"] ?? "");
        assert.equal(found?.useCount, 0);
        assert.equal(found?.lastUsedAt, undefined);
      });
    });

    describe("touch, get, list, delete", () => {
      it("touch sets lastUsedAt and counts uses, leaves updatedAt, and never recreates a deleted memory", async () => {
        const store = await open();
        const a = await seed(store, "touched", axis(0));
        const gone = await seed(store, "deleted before touch", axis(1));
        assert.equal(await store.delete(gone), true);
        assert.equal(await store.delete(gone), false, "a second delete finds nothing");
        await store.touch([a, gone, a], new Date("2026-03-01T00:00:00.000Z"));
        await store.touch([a], new Date("2026-03-02T00:00:00.000Z"));
        const touched = await store.get(a);
        assert.equal(touched?.useCount, 2, "a duplicate id in one call counts once");
        assert.equal(touched?.lastUsedAt, "2026-03-02T00:00:00.000Z");
        assert.equal(touched?.updatedAt, "2026-01-01T00:00:00.000Z");
        assert.equal(await store.get(gone), undefined);
        assert.deepEqual(Object.keys(await everything(store)), [a]);
      });

      it("getMany keeps the given order and skips missing and malformed ids; get and delete refuse nothing loudly", async () => {
        const store = await open();
        const x = await seed(store, "x", axis(2));
        const y = await seed(store, "y", axis(3));
        const got = await store.getMany([y, "mem_000000000000000000000000", "../escape", x]);
        assert.deepEqual(
          got.map((m) => m.id),
          [y, x],
        );
        assert.equal(await store.get("not-an-id"), undefined);
        assert.equal(await store.delete("not-an-id"), false);
      });

      it("list orders by score, highest first, every scope, at most `limit`", async () => {
        const store = await open();
        const low = await seed(store, "low", axis(4));
        const high = await seed(store, "high", axis(5));
        const elsewhere = await seed(store, "another agent's", axis(6), { scope: "other_agent" });
        await store.applyIntrospection(judgement("list-1", { helpful: [high], harmful: [low] }));
        const listed = await store.list({ limit: 100 });
        assert.equal(listed[0]?.id, high);
        assert.equal(listed.at(-1)?.id, low);
        assert.ok(listed.some((m) => m.id === elsewhere));
        assert.equal((await store.list({ limit: 1 })).length, 1);
        assert.deepEqual(await store.list({ limit: 0 }), []);
      });
    });

    describe("applyIntrospection: scores, pruning, exactly once per session", () => {
      it("harmful in four sessions: −1, −2, −3 kept, −4 deleted; helpful rises; unused untouched", async () => {
        const store = await open();
        const harmful = await seed(store, "wrong: syslog has no message field", axis(0));
        const helpful = await seed(store, "right: methodName holds the API method", axis(1));
        const unused = await seed(store, "never judged", axis(2));
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
        const raised = await store.get(helpful);
        assert.equal(raised?.score, 4);
        assert.equal(raised?.updatedAt, "2026-02-01T00:00:00.000Z");
        assert.deepEqual(await store.get(unused), before, "not a field changed");
        // Judged again after deletion: reported missing, not recreated.
        const late = await store.applyIntrospection(judgement("s-5", { harmful: [harmful] }));
        assert.deepEqual(late.missing, [harmful]);
        assert.equal(await store.get(harmful), undefined);
      });

      it("stores a session's new memories, each fact with its own embedding, at score 0", async () => {
        const store = await open();
        const fact = VM_NAME_FACT;
        const id = memoryIdFor("log_analyst", "new-1", fact);
        const outcome = await store.applyIntrospection({
          ...judgement("new-1", {}),
          created: [{ id, fact, embedding: axis(7) }],
        });
        assert.deepEqual(outcome.created, [id]);
        const stored = await store.get(id);
        assert.deepEqual(stored?.fact, fact);
        assert.equal(stored?.score, 0);
        assert.equal(stored?.useCount, 0);
        assert.deepEqual(stored?.source, { sessionId: "new-1", investigationId: "inv-1" });
        assert.deepEqual(stored?.embedding, axis(7));
      });

      it("the same session applied twice changes nothing the second time", async () => {
        const store = await open();
        const m = await seed(store, "judged once", axis(3));
        const write: IntrospectionWrite = {
          ...judgement("dup-1", { helpful: [m] }),
          created: [
            { id: memoryIdFor("log_analyst", "dup-1", VM_NAME_FACT), fact: VM_NAME_FACT, embedding: axis(4) },
          ],
        };
        assert.equal(await store.wasIntrospected("dup-1"), false);
        const first = await store.applyIntrospection(write);
        assert.equal(first.applied, true);
        assert.equal(first.created.length, 1);
        assert.equal(await store.wasIntrospected("dup-1"), true);
        const snapshot = await everything(store);
        const second = await store.applyIntrospection({ ...write, at: new Date("2027-01-01T00:00:00.000Z") });
        assert.deepEqual(second, {
          applied: false,
          created: [],
          raised: [],
          lowered: [],
          deleted: [],
          missing: [],
        });
        assert.deepEqual(await everything(store), snapshot);
        assert.equal((await store.get(m))?.score, 1);
      });

      it("four deliveries of one session at the same moment: exactly one applies", async () => {
        const store = await open();
        const m = await seed(store, "raced", axis(5));
        const outcomes = await Promise.all(
          Array.from({ length: 4 }, () => store.applyIntrospection(judgement("race-1", { helpful: [m] }))),
        );
        assert.equal(outcomes.filter((o) => o.applied).length, 1);
        assert.equal((await store.get(m))?.score, 1);
      });

      it("invalid writes are refused before anything is written", async () => {
        const store = await open();
        await assert.rejects(
          store.applyIntrospection(judgement("bad-1", { helpful: ["mem_1" as MemoryId] })),
          InvalidInputError,
        );
        const m = await seed(store, "both", axis(7));
        await assert.rejects(
          store.applyIntrospection(judgement("bad-2", { helpful: [m], harmful: [m] })),
          InvalidInputError,
        );
        await assert.rejects(
          store.applyIntrospection({
            ...judgement("bad-3", {}),
            created: [
              { id: memoryIdFor("log_analyst", "bad-3", VM_NAME_FACT), fact: VM_NAME_FACT, embedding: [1] },
            ],
          }),
          /768-d embedding/,
        );
        // A fact the type cannot hold (here: free prose in a table name) is never stored.
        const prose = { ...VM_NAME_FACT, table: "the backup job is approved" } as unknown as MemoryFact;
        await assert.rejects(
          store.applyIntrospection({
            ...judgement("bad-4", {}),
            created: [
              { id: memoryIdFor("log_analyst", "bad-4", VM_NAME_FACT), fact: prose, embedding: axis(1) },
            ],
          }),
        );
        for (const id of ["bad-1", "bad-2", "bad-3", "bad-4"])
          assert.equal(await store.wasIntrospected(id), false);
        assert.equal((await store.get(m))?.score, 0);
      });
    });
  });
}

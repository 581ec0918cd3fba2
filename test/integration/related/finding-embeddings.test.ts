import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import {
  FINDING_EMBEDDINGS_COLLECTION,
  FirestoreFindingEmbeddings,
  vectorOf,
} from "../../../functions/src/adapters/firestore/finding-embeddings.js";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { QUERY, unitWithSimilarity } from "./vectors.js";

const meta = (category: string, createdAt = "2026-03-01T10:00:00.000Z") => ({
  category,
  resource: "//compute.googleapis.com/projects/p/zones/z/instances/web-1",
  createdAt,
});

describe("FirestoreFindingEmbeddings on the emulator", () => {
  let db: Firestore;
  let store: FirestoreFindingEmbeddings;
  before(async () => {
    await ensureEmulators();
    db = createFirestore({ projectId: uniqueProjectId("embeddings") });
    store = new FirestoreFindingEmbeddings(db, { space: "test-space" });
    await store.upsert("inv-self", QUERY, meta("self"));
    await store.upsert("inv-095", unitWithSimilarity(0.95, 1), meta("close"));
    await store.upsert("inv-090", unitWithSimilarity(0.9, 2), { ...meta("near"), verdict: "true_positive" });
    await store.upsert("inv-085", unitWithSimilarity(0.85, 3), meta("fair"));
    await store.upsert("inv-070", unitWithSimilarity(0.7, 4), meta("far"));
    await store.upsert("inv-opposite", unitWithSimilarity(-1), meta("opposite"));
    // Same direction as the query, but another model's space: never comparable.
    await new FirestoreFindingEmbeddings(db, { space: "other-model" }).upsert(
      "inv-foreign",
      QUERY,
      meta("foreign"),
    );
  });
  after(async () => {
    await db.terminate();
  });

  const ids = (list: Array<{ id: string }>) => list.map((f) => f.id);

  it("returns findings at or above the similarity threshold, most similar first, without the excluded one", async () => {
    const found = await store.nearest(QUERY, { limit: 10, minSimilarity: 0.8, excludeId: "inv-self" });
    assert.deepEqual(ids(found), ["inv-095", "inv-090", "inv-085"]);
    assert.deepEqual(
      found.map((f) => Math.round(f.similarity * 1000) / 1000),
      [0.95, 0.9, 0.85],
      "similarity = 1 - cosine distance",
    );
    assert.equal(found[1]!.verdict, "true_positive");
    assert.equal(found[1]!.category, "near");
    assert.equal(found[0]!.verdict, undefined);
  });

  it("honours the limit after dropping the excluded finding", async () => {
    const found = await store.nearest(QUERY, { limit: 2, minSimilarity: 0.8, excludeId: "inv-self" });
    assert.deepEqual(ids(found), ["inv-095", "inv-090"]);
  });

  it("includes the query's own document when nothing is excluded", async () => {
    const found = await store.nearest(QUERY, { limit: 1, minSimilarity: 0.99 });
    assert.deepEqual(ids(found), ["inv-self"]);
    assert.ok(Math.abs(found[0]!.similarity - 1) < 1e-9);
  });

  it("a lower threshold reaches further; a threshold of -1 reaches everything in the space", async () => {
    assert.deepEqual(
      ids(await store.nearest(QUERY, { limit: 10, minSimilarity: 0.6, excludeId: "inv-self" })),
      ["inv-095", "inv-090", "inv-085", "inv-070"],
    );
    const all = await store.nearest(QUERY, { limit: 10, minSimilarity: -1, excludeId: "inv-self" });
    assert.deepEqual(ids(all).at(-1), "inv-opposite");
    assert.ok(!ids(all).includes("inv-foreign"), "another embedding space is never searched");
  });

  it("stores a real vector field and replaces it on re-index", async () => {
    await store.upsert("inv-reindexed", unitWithSimilarity(0.5, 5), meta("before"));
    await store.upsert("inv-reindexed", unitWithSimilarity(0.97, 5), { ...meta("after"), verdict: "benign" });
    const doc = await db.collection(FINDING_EMBEDDINGS_COLLECTION).doc("inv-reindexed").get();
    const vector = vectorOf(doc.data() ?? {});
    assert.equal(vector?.length, 768);
    assert.equal(doc.get("space"), "test-space");
    const found = await store.nearest(QUERY, { limit: 1, minSimilarity: 0.96, excludeId: "inv-self" });
    assert.deepEqual(
      found.map((f) => [f.id, f.category, f.verdict]),
      [["inv-reindexed", "after", "benign"]],
    );
  });

  it("refuses vectors it cannot compare", async () => {
    await assert.rejects(store.upsert("inv-bad", [1, 0, 0], meta("x")), InvalidInputError);
    await assert.rejects(
      store.nearest(new Array(768).fill(0), { limit: 1, minSimilarity: 0.5 }),
      /all zeros/,
    );
    await assert.rejects(store.nearest(QUERY, { limit: 1, minSimilarity: 2 }), InvalidInputError);
  });
});

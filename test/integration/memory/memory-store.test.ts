import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { FieldValue, type Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreMemoryStore } from "../../../functions/src/adapters/firestore/memory-store.js";
import { StorageError } from "../../../functions/src/domain/errors.js";
import { memoryStoreContract } from "../../contracts/memory-store.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { axis, SPACE, seedMemory } from "./support.js";

before(async () => {
  await ensureEmulators();
});

/** The shared MemoryStore suite on the Firestore emulator, a database (project id) per test. */
memoryStoreContract({
  name: "Firestore (emulator, findNearest with COSINE)",
  async open() {
    const db = createFirestore({ projectId: uniqueProjectId("mem") });
    return { store: new FirestoreMemoryStore(db), close: () => db.terminate() };
  },
});

describe("Firestore's own: stored documents", () => {
  let db: Firestore;
  let store: FirestoreMemoryStore;
  before(() => {
    db = createFirestore({ projectId: uniqueProjectId("mem-own") });
    store = new FirestoreMemoryStore(db);
  });
  after(async () => {
    await db.terminate();
  });

  test("a corrupt memory document is a non-retryable StorageError naming it", async () => {
    const id = await seedMemory(store, "to corrupt", axis(6));
    await db.doc(`memories/${id}`).update({ score: "high" });
    await assert.rejects(
      store.get(id),
      (e: unknown) => e instanceof StorageError && !e.retryable && e.message.includes(`memories/${id}`),
    );
  });

  test("a document holding prose instead of a typed fact (the layout before ADR 0045) is never read as a memory", async () => {
    const id = await seedMemory(store, "to rewrite as prose", axis(8));
    await db.doc(`memories/${id}`).update({
      fact: FieldValue.delete(),
      claim: "Every service account whose name begins with ci- belongs to the deployment platform.",
    });
    await assert.rejects(
      store.get(id),
      (e: unknown) => e instanceof StorageError && e.message.includes("fact"),
    );
  });

  test("the audit record names what the session changed, and expires 30 days after (Firestore's TTL policy)", async () => {
    const m = await seedMemory(store, "audited", axis(6));
    await store.applyIntrospection({
      sessionId: "audit/1",
      investigationId: "inv-1",
      scope: "log_analyst",
      created: [],
      embeddingSpace: SPACE,
      helpful: [],
      harmful: [m],
      model: "test",
      at: new Date("2026-02-01T00:00:00.000Z"),
    });
    const records = await db.collection("memorySessions").where("sessionId", "==", "audit/1").get();
    assert.equal(records.size, 1);
    const record = records.docs[0];
    assert.ok(record);
    assert.deepEqual(record.get("lowered"), [m]);
    assert.equal(record.get("model"), "test");
    const applied = Date.parse(record.get("appliedAt") as string);
    const expireAt = (record.get("expireAt") as { toMillis(): number }).toMillis();
    assert.equal(expireAt - applied, 30 * 24 * 3_600_000);
  });

  test("a deleted memory's document is gone, not kept with a mark", async () => {
    const id = await seedMemory(store, "deleted", axis(7));
    assert.equal(await store.delete(id), true);
    assert.equal((await db.doc(`memories/${id}`).get()).exists, false);
  });
});

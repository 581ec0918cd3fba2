import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreStepHistoryStore } from "../../../functions/src/adapters/firestore/step-history-store.js";
import { ConflictError, StorageError } from "../../../functions/src/domain/errors.js";
import { ZERO_USAGE } from "../../../functions/src/domain/results.js";
import type { StepHistoryDraft } from "../../../functions/src/ports/step-history-store.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation } from "../../helpers/investigation-builders.js";

function draft(stepId: string, rows: number, rowBytes = 100): StepHistoryDraft {
  return {
    stepId,
    messages: [
      { role: "user", text: "Investigation objective: trace 203.0.113.7" },
      {
        role: "model",
        toolCalls: [{ id: "c1", name: "log_query", args: { ip: "203.0.113.7", nested: [[1, 2]] } }],
      },
      {
        role: "tool",
        responses: [
          {
            id: "c1",
            name: "log_query",
            response: {
              ok: true,
              summary: `${rows} rows`,
              untrusted_data: {
                rows: Array.from({ length: rows }, (_, i) => ({ i, pad: "é".repeat(rowBytes) })),
              },
            },
          },
        ],
      },
    ],
    toolCalls: [],
    toolIocs: [{ type: "ip", value: "203.0.113.7" }],
    usage: ZERO_USAGE,
    iterations: 1,
    startedAt: "2026-03-01T10:02:00.000Z",
    compressions: 0,
  };
}

describe("FirestoreStepHistoryStore", () => {
  let db: Firestore;
  let store: FirestoreStepHistoryStore;
  const id = buildInvestigation().id;

  before(async () => {
    await ensureEmulators();
    db = createFirestore({ projectId: uniqueProjectId("histories") });
    store = new FirestoreStepHistoryStore(db, { now: () => new Date("2026-03-01T10:05:00.000Z") });
  });

  it("round-trips a history, nested arrays included, and counts revisions", async () => {
    assert.equal(await store.get(id, "small"), undefined);
    const first = await store.put(id, draft("small", 3), 0);
    assert.equal(first.revision, 1);
    assert.deepEqual(await store.get(id, "small"), first);
    const second = await store.put(id, { ...first, compressions: 1, pressure: undefined }, 1);
    assert.equal(second.revision, 2);
    assert.equal((await store.get(id, "small"))?.compressions, 1);
  });

  it("stores a history larger than a Firestore document in chunks and drops the old revision's", async () => {
    // ~2.4 MB of two-byte characters: three documents' worth.
    const big = draft("big", 600, 2_000);
    const stored = await store.put(id, big, 0);
    assert.deepEqual(await store.get(id, "big"), stored);
    const header = db.collection("investigations").doc(id).collection("histories").doc("big");
    const chunks = await header.collection("chunks").listDocuments();
    assert.ok(chunks.length >= 3, `${chunks.length} chunks`);

    const smaller = await store.put(id, draft("big", 2), 1);
    assert.deepEqual(await store.get(id, "big"), smaller);
    const left = await header.collection("chunks").listDocuments();
    assert.equal(left.length, 1, "the previous revision's chunks are deleted with the write");
  });

  it("refuses a write based on a stale revision (compare-and-set)", async () => {
    await store.put(id, draft("race", 1), 0);
    await store.put(id, draft("race", 2), 1);
    await assert.rejects(store.put(id, draft("race", 3), 1), ConflictError);
    await assert.rejects(store.put(id, draft("race", 3), 0), ConflictError);
    assert.equal((await store.get(id, "race"))?.revision, 2);
  });

  it("a history whose chunks were lost reads as a storage error, not as an empty history", async () => {
    await store.put(id, draft("lost", 1), 0);
    const header = db.collection("investigations").doc(id).collection("histories").doc("lost");
    for (const chunk of await header.collection("chunks").listDocuments()) await chunk.delete();
    await assert.rejects(store.get(id, "lost"), StorageError);
  });
});

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Firestore, Timestamp } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { COLLECTIONS, claimDocId, EXPIRE_AT_FIELD } from "../../../functions/src/adapters/firestore/paths.js";
import { investigationStoreContract } from "../../contracts/investigation-store.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";

const NOW = new Date("2026-03-01T12:00:00.000Z");

before(async () => {
  await ensureEmulators();
});

/**
 * The shared InvestigationStore suite on the Firestore emulator: each test gets a database of
 * its own (a fresh project id), and "another client" is a second Firestore client on it, with
 * no in-process lock shared with the first.
 */
investigationStoreContract({
  name: "Firestore (emulator)",
  now: NOW,
  async open() {
    const projectId = uniqueProjectId("store");
    const clients: Firestore[] = [];
    const client = () => {
      const db = createFirestore({ projectId });
      clients.push(db);
      return new FirestoreInvestigationStore(db, { now: () => NOW });
    };
    return {
      store: client(),
      another: client,
      close: async () => {
        await Promise.all(clients.map((c) => c.terminate()));
      },
    };
  },
});

describe("Firestore's own: claims expire", () => {
  let db: Firestore;
  before(() => {
    db = createFirestore({ projectId: uniqueProjectId("claims") });
  });
  after(async () => {
    await db.terminate();
  });

  test("a claim expires 30 days after it was made (Firestore's TTL policy deletes it then)", async () => {
    const store = new FirestoreInvestigationStore(db, { now: () => NOW });
    const key = `ttl:${Math.random()}`;
    await store.claimOnce("slack-event", key, { state: "pending" });
    const raw = await db.collection(COLLECTIONS.claims).doc(claimDocId("slack-event", key)).get();
    const expireAt = raw.get(EXPIRE_AT_FIELD) as Timestamp;
    assert.equal(expireAt.toDate().toISOString(), "2026-03-31T12:00:00.000Z");
  });
});

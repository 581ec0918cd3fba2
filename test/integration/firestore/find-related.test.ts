import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import type { Investigation } from "../../../functions/src/domain/investigation.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation } from "./builders.js";

let db: Firestore;
let store: FirestoreInvestigationStore;
const VM = "//compute.googleapis.com/projects/p/zones/z/instances/web-1";
const OTHER_VM = "//compute.googleapis.com/projects/p/zones/z/instances/db-1";
const ALICE = "alice@example.com";
const BOB = "bob@example.com";
let seeded: Record<string, Investigation>;

const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, "0")}:00.000Z`;
const ids = (list: Investigation[]) => list.map((i) => i.id);

before(async () => {
  await ensureEmulators();
  db = createFirestore({ projectId: uniqueProjectId("related") });
  store = new FirestoreInvestigationStore(db);
  seeded = {
    oldest: buildInvestigation({
      resourceName: VM,
      principal: ALICE,
      iocValues: ["198.51.100.9"],
      createdAt: at(1),
    }),
    middle: buildInvestigation({
      resourceName: VM,
      principal: BOB,
      iocValues: ["evil.example"],
      createdAt: at(2),
    }),
    newest: buildInvestigation({
      resourceName: OTHER_VM,
      principal: ALICE,
      iocValues: ["198.51.100.9", "x.example"],
      createdAt: at(3),
    }),
    current: buildInvestigation({
      resourceName: VM,
      principal: ALICE,
      iocValues: ["198.51.100.9"],
      createdAt: at(4),
    }),
    unrelated: buildInvestigation({
      resourceName: OTHER_VM,
      principal: BOB,
      iocValues: ["192.0.2.1"],
      createdAt: at(5),
    }),
  };
  for (const inv of Object.values(seeded)) await store.create(inv, []);
});

after(async () => {
  await db.terminate();
});

test("by resource, newest first, excluding the asking investigation", async () => {
  const found = await store.findRelated({ resourceName: VM, excludeId: seeded.current!.id, limit: 10 });
  assert.deepEqual(ids(found), [seeded.middle!.id, seeded.oldest!.id]);
});

test("by principal", async () => {
  const found = await store.findRelated({ principal: ALICE, excludeId: seeded.current!.id, limit: 10 });
  assert.deepEqual(ids(found), [seeded.newest!.id, seeded.oldest!.id]);
});

test("by IOC value (array-contains)", async () => {
  const found = await store.findRelated({ iocValue: "198.51.100.9", limit: 10 });
  assert.deepEqual(ids(found), [seeded.current!.id, seeded.newest!.id, seeded.oldest!.id]);
});

test("several criteria: the union, each investigation once, newest first, capped at limit", async () => {
  const query = {
    resourceName: VM,
    principal: ALICE,
    iocValue: "198.51.100.9",
    excludeId: seeded.current!.id,
  };
  assert.deepEqual(ids(await store.findRelated({ ...query, limit: 10 })), [
    seeded.newest!.id,
    seeded.middle!.id,
    seeded.oldest!.id,
  ]);
  assert.deepEqual(ids(await store.findRelated({ ...query, limit: 2 })), [
    seeded.newest!.id,
    seeded.middle!.id,
  ]);
});

test("the excluded investigation does not eat into the limit", async () => {
  const found = await store.findRelated({ resourceName: VM, excludeId: seeded.current!.id, limit: 1 });
  assert.deepEqual(ids(found), [seeded.middle!.id]);
});

test("no criteria or nothing matching: empty", async () => {
  assert.deepEqual(await store.findRelated({ limit: 5 }), []);
  assert.deepEqual(await store.findRelated({ principal: "nobody@example.com", limit: 5 }), []);
  assert.deepEqual(await store.findRelated({ resourceName: VM, limit: 0 }), []);
});

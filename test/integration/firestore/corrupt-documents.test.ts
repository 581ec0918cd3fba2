import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { StorageError } from "../../../functions/src/domain/errors.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation, buildStepResult, stepCounted } from "../../helpers/investigation-builders.js";

let db: Firestore;
let store: FirestoreInvestigationStore;

before(async () => {
  await ensureEmulators();
  db = createFirestore({ projectId: uniqueProjectId("corrupt") });
  store = new FirestoreInvestigationStore(db);
});

after(async () => {
  await db.terminate();
});

function isCorruption(path: string, detail: RegExp) {
  return (error: unknown) =>
    error instanceof StorageError &&
    !error.retryable &&
    error.message.includes(path) &&
    detail.test(error.message);
}

test("a document that does not match InvestigationSchema raises a non-retryable StorageError naming it", async () => {
  const inv = buildInvestigation();
  await store.create(inv, []);
  const path = `investigations/${inv.id}`;
  await db.doc(path).update({ status: "exploded", "counters.waves": "many" });
  await assert.rejects(
    store.get(inv.id),
    isCorruption(path, /status.*counters\.waves|counters\.waves.*status/s),
  );
  // A transaction reading it fails the same way, and the change never runs.
  let ran = false;
  await assert.rejects(
    store.update(inv.id, (c) => {
      ran = true;
      return { investigation: c };
    }),
    isCorruption(path, /status/),
  );
  assert.equal(ran, false);
});

test("free-form JSON that no longer parses is reported, not thrown as a SyntaxError later", async () => {
  const inv = buildInvestigation();
  await store.create(inv, []);
  await db.doc(`investigations/${inv.id}`).update({ "finding.sourceProperties": "{not json" });
  await assert.rejects(store.require(inv.id), isCorruption(inv.id, /sourceProperties.*not JSON/));
});

test("a document that is not an investigation at all", async () => {
  const inv = buildInvestigation();
  await db.doc(`investigations/${inv.id}`).set({ hello: "world" });
  await assert.rejects(store.get(inv.id), isCorruption(inv.id, /id|status/));
});

test("corrupt step results and events are reported with their paths", async () => {
  const inv = buildInvestigation();
  await store.create(inv, [{ type: "created", message: "start" }]);
  await store.recordStepResult(inv.id, buildStepResult("step1"), (c) => ({ investigation: stepCounted(c) }));
  const resultPath = `investigations/${inv.id}/results/step1`;
  await db.doc(resultPath).update({ iterations: -3 });
  await assert.rejects(store.getStepResult(inv.id, "step1"), isCorruption(resultPath, /iterations/));
  await assert.rejects(store.listStepResults(inv.id), isCorruption(resultPath, /iterations/));
  // recordStepResult reads the stored result to return it; corruption surfaces there too.
  await assert.rejects(
    store.recordStepResult(inv.id, buildStepResult("step1"), (c) => ({ investigation: stepCounted(c) })),
    isCorruption(resultPath, /iterations/),
  );

  const eventPath = `investigations/${inv.id}/events/0000000001`;
  await db.doc(eventPath).update({ type: "teleported" });
  await assert.rejects(store.listEvents(inv.id), isCorruption(eventPath, /type/));
});

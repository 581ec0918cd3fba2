import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { StorageError } from "../../../functions/src/domain/errors.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation, stepCounted } from "./builders.js";

const clients: Firestore[] = [];
let projectId: string;

function store(options: { maxTransactionAttempts?: number } = {}): FirestoreInvestigationStore {
  const db = createFirestore({ projectId });
  clients.push(db);
  return new FirestoreInvestigationStore(db, options);
}

before(async () => {
  await ensureEmulators();
  projectId = uniqueProjectId("contention");
});

after(async () => {
  await Promise.all(clients.map((c) => c.terminate()));
});

test("a transaction that loses contention and may not retry surfaces as a retryable StorageError", async () => {
  const inv = buildInvestigation();
  await store().create(inv, []);
  // Two clients, one attempt each: both read, both try to commit, the emulator aborts one.
  const outcomes = await Promise.allSettled(
    [store({ maxTransactionAttempts: 1 }), store({ maxTransactionAttempts: 1 })].map((s) =>
      s.update(inv.id, (c) => ({
        investigation: stepCounted(c),
        events: [{ type: "step_finished", message: "x" }],
      })),
    ),
  );
  const failures = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : []));
  assert.ok(failures.length >= 1, "expected at least one aborted transaction");
  for (const failure of failures) {
    assert.ok(failure instanceof StorageError, `not a StorageError: ${String(failure)}`);
    assert.equal(failure.retryable, true);
    assert.match(failure.message, /ABORTED/);
  }
  // Whatever committed is consistent: counter and event log agree.
  const final = await store().require(inv.id);
  const events = await store().listEvents(inv.id);
  assert.equal(final.counters.stepsExecuted, outcomes.length - failures.length);
  assert.deepEqual(
    events.map((e) => e.seq),
    Array.from({ length: final.counters.stepsExecuted }, (_, i) => i + 1),
  );
});

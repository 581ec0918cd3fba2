import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { StorageError } from "../../../functions/src/domain/errors.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation, stepCounted } from "../../helpers/investigation-builders.js";

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
  // Two clients, one attempt each, race to update one document: when both read before either
  // commits, the emulator aborts one. Whether the reads overlap depends on scheduling (on a
  // loaded machine one update can finish before the other starts), so the race is run again on
  // a fresh document until an abort happens; every round must leave a consistent document.
  const rounds = 20;
  const failures: unknown[] = [];
  for (let round = 0; round < rounds && failures.length === 0; round += 1) {
    const inv = buildInvestigation();
    await store().create(inv, []);
    const racers = [store({ maxTransactionAttempts: 1 }), store({ maxTransactionAttempts: 1 })];
    const outcomes = await Promise.allSettled(
      racers.map((s) =>
        s.update(inv.id, (c) => ({
          investigation: stepCounted(c),
          events: [{ type: "step_finished", message: "x" }],
        })),
      ),
    );
    const lost = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : []));
    failures.push(...lost);
    // Whatever committed is consistent: counter and event log agree.
    const final = await store().require(inv.id);
    const events = await store().listEvents(inv.id);
    assert.equal(final.counters.stepsExecuted, outcomes.length - lost.length);
    assert.deepEqual(
      events.map((e) => e.seq),
      Array.from({ length: final.counters.stepsExecuted }, (_, i) => i + 1),
    );
  }
  assert.ok(failures.length >= 1, `expected an aborted transaction within ${rounds} races`);
  for (const failure of failures) {
    assert.ok(failure instanceof StorageError, `not a StorageError: ${String(failure)}`);
    assert.equal(failure.retryable, true);
    assert.match(failure.message, /ABORTED/);
  }
});

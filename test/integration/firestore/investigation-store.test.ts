import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Firestore, Timestamp } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { COLLECTIONS, claimDocId, EXPIRE_AT_FIELD } from "../../../functions/src/adapters/firestore/paths.js";
import { InvalidInputError, NotFoundError, StorageError } from "../../../functions/src/domain/errors.js";
import type { ToolCall } from "../../../functions/src/domain/results.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation, buildReflection, buildStepResult, stepCounted } from "./builders.js";

const NOW = new Date("2026-03-01T12:00:00.000Z");
const clients: Firestore[] = [];
let projectId: string;
let store: FirestoreInvestigationStore;

/** Another process's view of the same database: its own client, no shared in-process lock. */
function independentStore(): FirestoreInvestigationStore {
  const db = createFirestore({ projectId });
  clients.push(db);
  return new FirestoreInvestigationStore(db, { now: () => NOW });
}

before(async () => {
  await ensureEmulators();
  projectId = uniqueProjectId("store");
  store = independentStore();
});

after(async () => {
  await Promise.all(clients.map((c) => c.terminate()));
});

describe("create", () => {
  test("stores the investigation and its initial events, numbered from 1", async () => {
    const inv = buildInvestigation();
    const out = await store.create(inv, [
      { type: "created", message: "finding received" },
      { type: "planned", message: "plan ready" },
    ]);
    assert.equal(out.created, true);
    assert.equal(out.investigation.eventSeq, 2);
    assert.deepEqual(
      out.events.map((e) => [e.seq, e.type, e.at, e.investigationId]),
      [
        [1, "created", NOW.toISOString(), inv.id],
        [2, "planned", NOW.toISOString(), inv.id],
      ],
    );
    assert.deepEqual(await store.get(inv.id), out.investigation);
    assert.deepEqual(await store.listEvents(inv.id), out.events);
  });

  test("keeps free-form finding JSON that Firestore could not store natively", async () => {
    const sourceProperties = {
      rows: [
        [1, "a"],
        [2, "b"],
      ],
      __reserved__: { deep: [[[null]]] },
      "dotted.key": true,
      "": "empty key",
    };
    const inv = buildInvestigation({ sourceProperties });
    await store.create(inv, []);
    assert.deepEqual((await store.require(inv.id)).finding.sourceProperties, sourceProperties);
  });

  test("keeps a finding's verbatim details (nested arrays, reserved names) through a round trip", async () => {
    const base = buildInvestigation();
    const details = {
      kubernetes: { pods: [{ ns: "default", labels: [[{ name: "app" }]] }] },
      "resource.__folders__": [["//cloudresourcemanager.googleapis.com/folders/1"]],
    };
    const inv = {
      ...base,
      finding: { ...base.finding, details, notes: ["a note"], severitySource: "finding" },
    };
    await store.create(inv, []);
    const back = (await store.require(inv.id)).finding;
    assert.deepEqual(back.details, details);
    assert.deepEqual(back.notes, ["a note"]);
  });

  test("three concurrent duplicates: exactly one creates, one set of initial events", async () => {
    const inv = buildInvestigation();
    const stores = [independentStore(), independentStore(), independentStore()];
    const outs = await Promise.all(
      stores.map((s, i) =>
        s.create({ ...inv, model: `racer-${i}` }, [{ type: "created", message: `by racer ${i}` }]),
      ),
    );
    assert.equal(outs.filter((o) => o.created).length, 1);
    const winner = outs.find((o) => o.created)!;
    for (const loser of outs.filter((o) => !o.created)) {
      assert.deepEqual(loser.events, []);
      assert.deepEqual(loser.investigation, winner.investigation);
    }
    const events = await store.listEvents(inv.id);
    assert.deepEqual(events, winner.events);
    assert.equal(events.length, 1);
  });

  test("a later create of an existing id changes nothing", async () => {
    const inv = buildInvestigation();
    await store.create(inv, [{ type: "created", message: "first" }]);
    const again = await store.create({ ...inv, status: "failed" }, [{ type: "failed", message: "second" }]);
    assert.equal(again.created, false);
    assert.equal(again.investigation.status, "queued");
    assert.deepEqual(
      (await store.listEvents(inv.id)).map((e) => e.message),
      ["first"],
    );
  });

  test("refuses an investigation that does not match the schema", async () => {
    const inv = buildInvestigation();
    await assert.rejects(store.create({ ...inv, id: "not-an-id" }, []), InvalidInputError);
  });
});

describe("get and require", () => {
  test("get returns undefined and require throws NotFoundError for an unknown id", async () => {
    const inv = buildInvestigation();
    assert.equal(await store.get(inv.id), undefined);
    await assert.rejects(store.require(inv.id), NotFoundError);
  });

  test("an id that cannot be an investigation id is refused before any query", async () => {
    await assert.rejects(store.get("investigations/../x"), InvalidInputError);
  });
});

describe("update", () => {
  test("ten parallel updates through one store: counter 10, events 1..10 without gaps", async () => {
    const inv = buildInvestigation();
    await store.create(inv, []);
    const outs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.update(inv.id, (current) => ({
          investigation: stepCounted(current),
          events: [{ type: "step_finished", message: `update ${i}`, stepId: `step${i}` }],
        })),
      ),
    );
    const final = await store.require(inv.id);
    assert.equal(final.counters.stepsExecuted, 10);
    assert.equal(final.eventSeq, 10);
    const events = await store.listEvents(inv.id);
    assert.deepEqual(
      events.map((e) => e.seq),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    assert.equal(new Set(events.map((e) => e.message)).size, 10);
    // Each call reports exactly the event it committed.
    assert.deepEqual(
      outs.flatMap((o) => o.events.map((e) => e.seq)).sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
  });

  test("parallel updates from independent clients serialize through the transaction", async () => {
    const inv = buildInvestigation();
    await store.create(inv, [{ type: "created", message: "start" }]);
    const racers = [independentStore(), independentStore(), independentStore()];
    await Promise.all(
      racers.flatMap((s, r) =>
        [0, 1].map((i) =>
          s.update(inv.id, (current) => ({
            investigation: stepCounted(current),
            events: [
              { type: "step_started", message: `r${r}u${i} started` },
              { type: "step_finished", message: `r${r}u${i} finished` },
            ],
          })),
        ),
      ),
    );
    const final = await store.require(inv.id);
    assert.equal(final.counters.stepsExecuted, 6);
    const events = await store.listEvents(inv.id);
    assert.deepEqual(
      events.map((e) => e.seq),
      Array.from({ length: 13 }, (_, i) => i + 1),
    );
    assert.equal(final.eventSeq, 13);
    // The two events of one update are adjacent: a transaction's writes are never interleaved.
    for (let i = 1; i < events.length; i += 2) {
      assert.equal(events[i]!.message.replace("started", ""), events[i + 1]!.message.replace("finished", ""));
    }
  });

  test("a change that returns undefined writes nothing", async () => {
    const inv = buildInvestigation();
    const created = await store.create(inv, [{ type: "created", message: "start" }]);
    const out = await store.update(inv.id, () => undefined);
    assert.deepEqual(out, { investigation: created.investigation, events: [] });
    assert.equal((await store.listEvents(inv.id)).length, 1);
  });

  test("the store owns eventSeq, whatever the change function puts there", async () => {
    const inv = buildInvestigation();
    await store.create(inv, [{ type: "created", message: "start" }]);
    const out = await store.update(inv.id, (current) => ({
      investigation: { ...current, eventSeq: 99 },
      events: [{ type: "planned", message: "plan" }],
    }));
    assert.equal(out.investigation.eventSeq, 2);
    assert.equal((await store.require(inv.id)).eventSeq, 2);
  });

  test("unknown investigation: NotFoundError, and the change never runs", async () => {
    let ran = false;
    await assert.rejects(
      store.update(buildInvestigation().id, (c) => {
        ran = true;
        return { investigation: c };
      }),
      NotFoundError,
    );
    assert.equal(ran, false);
  });

  test("a change may not swap the investigation for another one", async () => {
    const inv = buildInvestigation();
    const other = buildInvestigation();
    await store.create(inv, []);
    await assert.rejects(
      store.update(inv.id, () => ({ investigation: other })),
      (e: unknown) => e instanceof StorageError && !e.retryable && /returned investigation/.test(e.message),
    );
    assert.deepEqual((await store.require(inv.id)).finding.name, inv.finding.name);
  });

  test("a change producing an invalid investigation is refused and nothing is written", async () => {
    const inv = buildInvestigation();
    await store.create(inv, []);
    await assert.rejects(
      store.update(inv.id, (current) => ({
        investigation: { ...current, counters: { ...current.counters, waves: -1 } },
        events: [{ type: "reflected", message: "bad" }],
      })),
      InvalidInputError,
    );
    assert.deepEqual(await store.listEvents(inv.id), []);
  });
});

describe("recordStepResult", () => {
  test("second call returns created:false and the first result; the investigation changes once", async () => {
    const inv = buildInvestigation();
    await store.create(inv, []);
    const change = (current: typeof inv) => ({
      investigation: stepCounted(current),
      events: [{ type: "step_finished" as const, message: "step1 done", stepId: "step1" }],
    });
    const first = await store.recordStepResult(
      inv.id,
      buildStepResult("step1", { summary: "first" }),
      change,
    );
    const second = await store.recordStepResult(
      inv.id,
      buildStepResult("step1", { summary: "second" }),
      change,
    );
    assert.equal(first.created, true);
    assert.equal(first.events.length, 1);
    assert.equal(second.created, false);
    assert.equal(second.result.summary, "first");
    assert.deepEqual(second.events, []);
    assert.deepEqual(second.investigation, first.investigation);
    assert.equal((await store.require(inv.id)).counters.stepsExecuted, 1);
    assert.equal((await store.listEvents(inv.id)).length, 1);
    assert.equal((await store.getStepResult(inv.id, "step1"))?.summary, "first");
  });

  test("concurrent duplicates from independent clients: exactly one is recorded", async () => {
    const inv = buildInvestigation();
    await store.create(inv, []);
    const outs = await Promise.all(
      [independentStore(), independentStore()].map((s, i) =>
        s.recordStepResult(inv.id, buildStepResult("step1", { summary: `racer ${i}` }), (current) => ({
          investigation: stepCounted(current),
          events: [{ type: "step_finished", message: `racer ${i}` }],
        })),
      ),
    );
    assert.equal(outs.filter((o) => o.created).length, 1);
    assert.equal(outs[0]!.result.summary, outs[1]!.result.summary);
    assert.equal((await store.require(inv.id)).counters.stepsExecuted, 1);
    assert.equal((await store.listEvents(inv.id)).length, 1);
  });

  test("tool calls with nested arrays and arbitrary keys round-trip; results list in finishing order", async () => {
    const inv = buildInvestigation();
    await store.create(inv, []);
    const toolCalls: ToolCall[] = [
      {
        id: "call-1",
        name: "query_logs",
        args: { sql: "SELECT 1", params: { "a.b": [["x"]] } },
        ok: true,
        summary: "2 rows",
        data: {
          columns: ["ip", "n"],
          rows: [
            ["203.0.113.7", 3],
            ["198.51.100.1", 1],
          ],
        },
        durationMs: 12,
      },
    ];
    const later = buildStepResult("step-b", { finishedAt: "2026-03-01T10:09:00.000Z", toolCalls });
    const earlier = buildStepResult("step-a", {
      finishedAt: "2026-03-01T10:05:00.000Z",
      status: "failed",
      outcome: "failed",
    });
    await store.recordStepResult(inv.id, later, (c) => ({ investigation: stepCounted(c) }));
    await store.recordStepResult(inv.id, earlier, (c) => ({ investigation: stepCounted(c) }));
    assert.deepEqual(await store.getStepResult(inv.id, "step-b"), later);
    assert.deepEqual(
      (await store.listStepResults(inv.id)).map((r) => r.stepId),
      ["step-a", "step-b"],
    );
    assert.equal(await store.getStepResult(inv.id, "missing"), undefined);
  });
});

describe("recordReflection", () => {
  test("keyed by wave: once per wave, listed in wave order", async () => {
    const inv = buildInvestigation();
    await store.create(inv, []);
    const wave = (n: number, rationale: string) =>
      store.recordReflection(inv.id, buildReflection(n, { rationale }), (current) => ({
        investigation: { ...current, counters: { ...current.counters, waves: current.counters.waves + 1 } },
        events: [{ type: "reflected", message: `wave ${n}` }],
      }));
    await wave(10, "ten");
    await wave(2, "two");
    const again = await wave(2, "two again");
    assert.equal(again.created, false);
    assert.equal(again.reflection.rationale, "two");
    assert.deepEqual(
      (await store.listReflections(inv.id)).map((r) => r.wave),
      [2, 10],
    );
    assert.equal((await store.getReflection(inv.id, 10))?.rationale, "ten");
    assert.equal(await store.getReflection(inv.id, 3), undefined);
    assert.equal((await store.require(inv.id)).counters.waves, 2);
    assert.deepEqual(
      (await store.listEvents(inv.id)).map((e) => e.message),
      ["wave 10", "wave 2"],
    );
  });
});

describe("claimOnce", () => {
  test("only the first claim of a key wins, and its value is readable", async () => {
    const key = `thread:${Math.random()}`;
    assert.equal(await store.readClaim("slack", key), undefined);
    assert.equal(await store.claimOnce("slack", key, { ts: "1700000000.000100" }), true);
    assert.equal(await store.claimOnce("slack", key, { ts: "other" }), false);
    assert.deepEqual(await store.readClaim("slack", key), { ts: "1700000000.000100" });
    // Same key in another scope is another claim; keys may hold characters ids cannot.
    assert.equal(await store.claimOnce("session-scored", key), true);
    assert.deepEqual(await store.readClaim("session-scored", key), {});
    assert.equal(await store.claimOnce("a/b", "c/../d"), true);
  });

  test("a claim expires 30 days after it was made (Firestore's TTL policy deletes it then)", async () => {
    const key = `ttl:${Math.random()}`;
    await store.claimOnce("slack-event", key, { state: "pending" });
    const raw = await clients[0]!.collection(COLLECTIONS.claims).doc(claimDocId("slack-event", key)).get();
    const expireAt = raw.get(EXPIRE_AT_FIELD) as Timestamp;
    assert.equal(expireAt.toDate().toISOString(), "2026-03-31T12:00:00.000Z");
  });

  test("five concurrent claims from independent clients: one wins", async () => {
    const key = `race:${Math.random()}`;
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => independentStore().claimOnce("race", key, { by: String(i) })),
    );
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal((await store.readClaim("race", key))?.by, String(results.indexOf(true)));
  });
});

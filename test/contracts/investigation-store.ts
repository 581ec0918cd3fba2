import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { InvalidInputError, NotFoundError, StorageError } from "../../functions/src/domain/errors.js";
import type { Investigation, InvestigationStatus } from "../../functions/src/domain/investigation.js";
import type { ToolCall } from "../../functions/src/domain/results.js";
import type { InvestigationStore } from "../../functions/src/ports/investigation-store.js";
import {
  buildInvestigation,
  buildReflection,
  buildStepResult,
  stepCounted,
} from "../helpers/investigation-builders.js";

/**
 * What every InvestigationStore adapter does: one suite of behaviour tests run against
 * Firestore (on the emulator, test/integration/firestore/investigation-store.test.ts) and the
 * in-memory store the app layer's pure tests use (test/helpers/memory-investigation-store.ts,
 * test/unit/store/investigation-store.test.ts). What only Firestore has (TTL fields, a commit
 * whose answer was lost, contention, corrupt documents) stays in Firestore's own tests.
 */
export interface StoreHarness {
  name: string;
  /** The clock the store stamps events with. */
  now: Date;
  /**
   * A store over an empty database, and another process's view of that database (its own
   * client, nothing shared in-process), for the races.
   */
  open(): Promise<{ store: InvestigationStore; another(): InvestigationStore; close(): Promise<void> }>;
}

export function investigationStoreContract(harness: StoreHarness): void {
  const NOW = harness.now.toISOString();
  const closers: Array<() => Promise<void>> = [];
  const open = async () => {
    const opened = await harness.open();
    closers.push(opened.close);
    return opened;
  };
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  describe(`InvestigationStore contract: ${harness.name}`, () => {
    describe("create", () => {
      it("stores the investigation and its initial events, numbered from 1", async () => {
        const { store } = await open();
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
            [1, "created", NOW, inv.id],
            [2, "planned", NOW, inv.id],
          ],
        );
        assert.deepEqual(await store.get(inv.id), out.investigation);
        assert.deepEqual(await store.listEvents(inv.id), out.events);
      });

      it("keeps free-form finding JSON (nested arrays, reserved and dotted keys) through a round trip", async () => {
        const { store } = await open();
        const sourceProperties = {
          rows: [
            [1, "a"],
            [2, "b"],
          ],
          __reserved__: { deep: [[[null]]] },
          "dotted.key": true,
          "": "empty key",
        };
        const base = buildInvestigation({ sourceProperties });
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
        assert.deepEqual(back.sourceProperties, sourceProperties);
        assert.deepEqual(back.details, details);
        assert.deepEqual(back.notes, ["a note"]);
      });

      it("keeps what it stored when the caller changes its objects afterwards", async () => {
        const { store } = await open();
        const inv = buildInvestigation();
        const out = await store.create(inv, []);
        out.investigation.iocValues.push("198.51.100.66");
        inv.iocValues.push("198.51.100.77");
        assert.deepEqual((await store.require(inv.id)).iocValues, ["203.0.113.7"]);
      });

      it("three concurrent duplicates from independent clients: exactly one creates, one set of initial events", async () => {
        const { store, another } = await open();
        const inv = buildInvestigation();
        const outs = await Promise.all(
          [another(), another(), another()].map((s, i) =>
            s.create({ ...inv, model: `racer-${i}` }, [{ type: "created", message: `by racer ${i}` }]),
          ),
        );
        assert.equal(outs.filter((o) => o.created).length, 1);
        const winner = outs.find((o) => o.created);
        for (const loser of outs.filter((o) => !o.created)) {
          assert.deepEqual(loser.events, []);
          assert.deepEqual(loser.investigation, winner?.investigation);
        }
        const events = await store.listEvents(inv.id);
        assert.deepEqual(events, winner?.events);
        assert.equal(events.length, 1);
      });

      it("a later create of an existing id changes nothing", async () => {
        const { store } = await open();
        const inv = buildInvestigation();
        await store.create(inv, [{ type: "created", message: "first" }]);
        const again = await store.create({ ...inv, status: "failed" }, [
          { type: "failed", message: "second" },
        ]);
        assert.equal(again.created, false);
        assert.equal(again.investigation.status, "queued");
        assert.deepEqual(
          (await store.listEvents(inv.id)).map((e) => e.message),
          ["first"],
        );
      });

      it("refuses an investigation that does not match the schema", async () => {
        const { store } = await open();
        await assert.rejects(
          store.create({ ...buildInvestigation(), id: "not-an-id" }, []),
          InvalidInputError,
        );
      });
    });

    describe("get and require", () => {
      it("get returns undefined and require throws NotFoundError for an unknown id", async () => {
        const { store } = await open();
        const inv = buildInvestigation();
        assert.equal(await store.get(inv.id), undefined);
        await assert.rejects(store.require(inv.id), NotFoundError);
      });

      it("refuses an id that cannot be an investigation id", async () => {
        const { store } = await open();
        await assert.rejects(store.get("investigations/../x"), InvalidInputError);
      });
    });

    describe("update", () => {
      it("ten parallel updates through one store: counter 10, events 1..10 without gaps, each reported once", async () => {
        const { store } = await open();
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
        assert.deepEqual(
          outs.flatMap((o) => o.events.map((e) => e.seq)).sort((a, b) => a - b),
          [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        );
      });

      it("parallel updates from independent clients are serialised: one update's events stay together", async () => {
        const { store, another } = await open();
        const inv = buildInvestigation();
        await store.create(inv, [{ type: "created", message: "start" }]);
        await Promise.all(
          [another(), another(), another()].flatMap((s, r) =>
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
        assert.equal(final.eventSeq, 13);
        const events = await store.listEvents(inv.id);
        assert.deepEqual(
          events.map((e) => e.seq),
          Array.from({ length: 13 }, (_, i) => i + 1),
        );
        for (let i = 1; i < events.length; i += 2) {
          assert.equal(
            events[i]?.message.replace("started", ""),
            events[i + 1]?.message.replace("finished", ""),
          );
        }
      });

      it("a change that returns undefined writes nothing", async () => {
        const { store } = await open();
        const inv = buildInvestigation();
        const created = await store.create(inv, [{ type: "created", message: "start" }]);
        const out = await store.update(inv.id, () => undefined);
        assert.deepEqual(out, { investigation: created.investigation, events: [] });
        assert.equal((await store.listEvents(inv.id)).length, 1);
      });

      it("owns eventSeq, whatever the change function puts there", async () => {
        const { store } = await open();
        const inv = buildInvestigation();
        await store.create(inv, [{ type: "created", message: "start" }]);
        const out = await store.update(inv.id, (current) => ({
          investigation: { ...current, eventSeq: 99 },
          events: [{ type: "planned", message: "plan" }],
        }));
        assert.equal(out.investigation.eventSeq, 2);
        assert.equal((await store.require(inv.id)).eventSeq, 2);
      });

      it("an unknown investigation: NotFoundError, and the change never runs", async () => {
        const { store } = await open();
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

      it("a change may not swap the investigation for another one", async () => {
        const { store } = await open();
        const inv = buildInvestigation();
        await store.create(inv, []);
        await assert.rejects(
          store.update(inv.id, () => ({ investigation: buildInvestigation() })),
          (e: unknown) =>
            e instanceof StorageError && !e.retryable && /returned investigation/.test(e.message),
        );
        assert.equal((await store.require(inv.id)).finding.name, inv.finding.name);
      });

      it("a change producing an invalid investigation is refused and nothing is written", async () => {
        const { store } = await open();
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
        assert.equal((await store.require(inv.id)).counters.waves, 0);
      });
    });

    describe("recordStepResult", () => {
      it("records once: a second call returns created:false and the first result; the investigation changes once", async () => {
        const { store } = await open();
        const inv = buildInvestigation();
        await store.create(inv, []);
        const change = (current: Investigation) => ({
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

      it("concurrent duplicates from independent clients: exactly one is recorded", async () => {
        const { store, another } = await open();
        const inv = buildInvestigation();
        await store.create(inv, []);
        const outs = await Promise.all(
          [another(), another()].map((s, i) =>
            s.recordStepResult(inv.id, buildStepResult("step1", { summary: `racer ${i}` }), (current) => ({
              investigation: stepCounted(current),
              events: [{ type: "step_finished", message: `racer ${i}` }],
            })),
          ),
        );
        assert.equal(outs.filter((o) => o.created).length, 1);
        assert.equal(outs[0]?.result.summary, outs[1]?.result.summary);
        assert.equal((await store.require(inv.id)).counters.stepsExecuted, 1);
        assert.equal((await store.listEvents(inv.id)).length, 1);
      });

      it("tool calls with nested arrays and arbitrary keys round-trip; results list in finishing order", async () => {
        const { store } = await open();
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

      it("refuses a result for an unknown investigation, and records nothing", async () => {
        const { store } = await open();
        const id = buildInvestigation().id;
        await assert.rejects(
          store.recordStepResult(id, buildStepResult("step1"), (c) => ({ investigation: c })),
          NotFoundError,
        );
        assert.deepEqual(await store.listStepResults(id), []);
      });
    });

    describe("recordReflection", () => {
      const waves = (store: InvestigationStore, id: string) => (n: number, rationale: string) =>
        store.recordReflection(id, buildReflection(n, { rationale }), (current) => ({
          investigation: { ...current, counters: { ...current.counters, waves: current.counters.waves + 1 } },
          events: [{ type: "reflected", message: `wave ${n}` }],
        }));

      it("records once per wave and lists them in wave order", async () => {
        const { store } = await open();
        const inv = buildInvestigation();
        await store.create(inv, []);
        const wave = waves(store, inv.id);
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

      it("keeps an early reflection apart from its wave's: once per decisive step, listed, not the wave's", async () => {
        const { store } = await open();
        const inv = buildInvestigation();
        await store.create(inv, []);
        const early = (stepId: string, rationale: string) =>
          store.recordReflection(inv.id, buildReflection(1, { rationale, early: { stepId } }), (current) => ({
            investigation: current,
          }));
        assert.equal((await early("step1", "decisive")).created, true);
        assert.equal((await early("step1", "again")).created, false);
        await waves(store, inv.id)(1, "the wave's own");
        assert.equal((await store.getReflection(inv.id, 1))?.rationale, "the wave's own");
        assert.deepEqual((await store.listReflections(inv.id)).map((r) => r.rationale).sort(), [
          "decisive",
          "the wave's own",
        ]);
      });
    });

    describe("claims", () => {
      it("only the first claim of a key wins, and its value is readable", async () => {
        const { store } = await open();
        const key = "thread:C1/1700000000.000100";
        assert.equal(await store.readClaim("slack", key), undefined);
        assert.equal(await store.claimOnce("slack", key, { ts: "1700000000.000100" }), true);
        assert.equal(await store.claimOnce("slack", key, { ts: "other" }), false);
        assert.deepEqual(await store.readClaim("slack", key), { ts: "1700000000.000100" });
        // The same key in another scope is another claim; keys may hold characters ids cannot.
        assert.equal(await store.claimOnce("session-scored", key), true);
        assert.deepEqual(await store.readClaim("session-scored", key), {});
        assert.equal(await store.claimOnce("a/b", "c/../d"), true);
        assert.equal(
          await store.claimOnce("a", "b/c/../d"),
          true,
          "scope and key are not joined into one string",
        );
      });

      it("five concurrent claims from independent clients: one wins, and its value is the one kept", async () => {
        const { store, another } = await open();
        const results = await Promise.all(
          Array.from({ length: 5 }, (_, i) => another().claimOnce("race", "key", { by: String(i) })),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.equal((await store.readClaim("race", "key"))?.by, String(results.indexOf(true)));
      });
    });

    describe("searches", () => {
      const VM = "//compute.googleapis.com/projects/p/zones/z/instances/web-1";
      const OTHER_VM = "//compute.googleapis.com/projects/p/zones/z/instances/db-1";
      const ALICE = "alice@example.com";
      const BOB = "bob@example.com";
      const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, "0")}:00.000Z`;
      const ids = (list: Investigation[]) => list.map((i) => i.id);

      async function related() {
        const { store } = await open();
        const seeded = {
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
        return { store, seeded };
      }

      it("findRelated by resource, principal or IOC value: newest first, the asking investigation left out", async () => {
        const { store, seeded } = await related();
        const exclude = seeded.current.id;
        assert.deepEqual(ids(await store.findRelated({ resourceName: VM, excludeId: exclude, limit: 10 })), [
          seeded.middle.id,
          seeded.oldest.id,
        ]);
        assert.deepEqual(ids(await store.findRelated({ principal: ALICE, excludeId: exclude, limit: 10 })), [
          seeded.newest.id,
          seeded.oldest.id,
        ]);
        assert.deepEqual(ids(await store.findRelated({ iocValue: "198.51.100.9", limit: 10 })), [
          seeded.current.id,
          seeded.newest.id,
          seeded.oldest.id,
        ]);
      });

      it("findRelated on several criteria: the union, each once, newest first, capped at limit", async () => {
        const { store, seeded } = await related();
        const query = {
          resourceName: VM,
          principal: ALICE,
          iocValue: "198.51.100.9",
          excludeId: seeded.current.id,
        };
        assert.deepEqual(ids(await store.findRelated({ ...query, limit: 10 })), [
          seeded.newest.id,
          seeded.middle.id,
          seeded.oldest.id,
        ]);
        assert.deepEqual(ids(await store.findRelated({ ...query, limit: 2 })), [
          seeded.newest.id,
          seeded.middle.id,
        ]);
        assert.deepEqual(
          ids(await store.findRelated({ resourceName: VM, excludeId: seeded.current.id, limit: 1 })),
          [seeded.middle.id],
          "the excluded investigation does not eat into the limit",
        );
      });

      it("findRelated with no criteria, nothing matching or limit 0: empty", async () => {
        const { store } = await related();
        assert.deepEqual(await store.findRelated({ limit: 5 }), []);
        assert.deepEqual(await store.findRelated({ principal: "nobody@example.com", limit: 5 }), []);
        assert.deepEqual(await store.findRelated({ resourceName: VM, limit: 0 }), []);
      });

      async function withStatuses(spec: Array<[InvestigationStatus, number]>) {
        const { store } = await open();
        const made: Investigation[] = [];
        for (const [status, minute] of spec) {
          const inv = { ...buildInvestigation({ createdAt: at(0) }), status, updatedAt: at(minute) };
          await store.create(inv, []);
          made.push(inv);
        }
        return { store, made };
      }

      it("listStalled: unfinished investigations not changed since the time, least recently changed first", async () => {
        const { store, made } = await withStatuses([
          ["running", 20],
          ["queued", 5],
          ["concluded", 1],
          ["planning", 10],
          ["needs_human", 2],
          ["concluding", 40],
        ]);
        const [running, queued, , planning] = made;
        assert.deepEqual(ids(await store.listStalled({ updatedBefore: at(30), limit: 10 })), [
          queued?.id,
          planning?.id,
          running?.id,
        ]);
        assert.deepEqual(ids(await store.listStalled({ updatedBefore: at(30), limit: 2 })), [
          queued?.id,
          planning?.id,
        ]);
        assert.deepEqual(await store.listStalled({ updatedBefore: at(30), limit: 0 }), []);
      });

      it("listChangedSince: one status, changed after the time, oldest change first", async () => {
        const { store, made } = await withStatuses([
          ["needs_human", 30],
          ["needs_human", 10],
          ["concluded", 20],
          ["needs_human", 1],
        ]);
        const [late, early] = made;
        assert.deepEqual(
          ids(await store.listChangedSince({ status: "needs_human", updatedAfter: at(5), limit: 10 })),
          [early?.id, late?.id],
        );
        assert.deepEqual(
          ids(await store.listChangedSince({ status: "needs_human", updatedAfter: at(5), limit: 1 })),
          [early?.id],
        );
        assert.deepEqual(
          await store.listChangedSince({ status: "concluded", updatedAfter: at(20), limit: 10 }),
          [],
        );
      });
    });
  });
}

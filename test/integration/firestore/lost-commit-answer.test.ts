import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation, buildStepResult, stepCounted } from "../../helpers/investigation-builders.js";
import { startTcpProxy, type TcpProxy } from "../../helpers/tcp-proxy.js";
import { waitFor } from "../../helpers/wait-for.js";

/** The client takes the emulator's address from the environment when it is constructed. */
function throughProxy(make: () => Firestore, host: string): Firestore {
  const saved = process.env.FIRESTORE_EMULATOR_HOST;
  process.env.FIRESTORE_EMULATOR_HOST = host;
  try {
    return make();
  } finally {
    process.env.FIRESTORE_EMULATOR_HOST = saved;
  }
}

/**
 * A create() whose commit reaches the emulator but whose answer is lost: the client retries
 * the commit on a new connection, and the retry fails with ALREADY_EXISTS. The store must
 * still report the write as the caller's own; otherwise a claim is held by nobody (a Slack
 * post stalls until the claim goes stale) and an investigation's first events are never
 * published. Reproduced on the wire, through a proxy that swallows the answer.
 */
describe("a write that landed but whose answer was lost", () => {
  const clients: Firestore[] = [];
  let proxy: TcpProxy;
  let direct: FirestoreInvestigationStore;
  let viaProxy: FirestoreInvestigationStore;

  before(async () => {
    const emulators = await ensureEmulators();
    proxy = await startTcpProxy(emulators.firestoreHost);
    const projectId = uniqueProjectId("lost-answer");
    const directDb = createFirestore({ projectId });
    const proxiedDb = throughProxy(() => createFirestore({ projectId }), proxy.host);
    clients.push(directDb, proxiedDb);
    direct = new FirestoreInvestigationStore(directDb);
    viaProxy = new FirestoreInvestigationStore(proxiedDb);
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.terminate()));
    await proxy.close();
  });

  /**
   * Runs `write`, which mutes the answers right before its commit goes out (`mute`), drops
   * the connection once `landed` sees the write in the emulator, and lets the client reconnect.
   */
  async function loseTheAnswer<T>(
    write: (mute: () => void) => Promise<T>,
    landed: () => Promise<boolean>,
  ): Promise<T> {
    // A first round trip, so the write goes over an established connection.
    await viaProxy.readClaim("warm-up", "x");
    let muted = false;
    const pending = write(() => {
      if (muted) return;
      muted = true;
      proxy.muteReplies();
    });
    try {
      await waitFor("the write to land", async () => ((await landed()) ? true : undefined), 20_000, 50);
    } finally {
      proxy.cut();
      proxy.restore();
    }
    return pending;
  }

  test("claimOnce: the caller whose commit landed holds the claim; a second caller does not", async () => {
    const key = `lost:${Math.random()}`;
    const won = await loseTheAnswer(
      (mute) => {
        mute();
        return viaProxy.claimOnce("slack-event", key, { state: "pending" });
      },
      async () => (await direct.readClaim("slack-event", key)) !== undefined,
    );
    assert.equal(won, true, "the claim's own maker must hold it");
    assert.equal(await direct.claimOnce("slack-event", key, { state: "pending" }), false);
    assert.deepEqual(await direct.readClaim("slack-event", key), { state: "pending" });
  });

  test("create: the caller whose commit landed gets created:true and its initial events", async () => {
    const inv = buildInvestigation();
    const out = await loseTheAnswer(
      (mute) => {
        mute();
        return viaProxy.create(inv, [{ type: "created", message: "finding received" }]);
      },
      async () => (await direct.get(inv.id)) !== undefined,
    );
    assert.equal(out.created, true);
    assert.deepEqual(
      out.events.map((e) => [e.seq, e.type]),
      [[1, "created"]],
    );
    assert.deepEqual(await direct.listEvents(inv.id), out.events);
    const again = await direct.create(inv, [{ type: "created", message: "duplicate delivery" }]);
    assert.equal(again.created, false);
    assert.deepEqual(again.events, []);
  });

  test("update: the caller whose transaction landed gets its own events back, once", async () => {
    const inv = buildInvestigation();
    await direct.create(inv, [{ type: "created", message: "finding received" }]);
    let runs = 0;
    const out = await loseTheAnswer(
      (mute) =>
        viaProxy.update(inv.id, (current) => {
          runs += 1;
          mute();
          // Written as a real caller writes: act only if the work is still to do.
          if (current.counters.stepsExecuted > 0) return undefined;
          return {
            investigation: stepCounted(current),
            events: [{ type: "step_started", message: "step1 started", stepId: "step1" }],
          };
        }),
      async () => (await direct.listEvents(inv.id)).length === 2,
    );
    assert.deepEqual(
      out.events.map((e) => [e.seq, e.type]),
      [[2, "step_started"]],
    );
    assert.equal(out.investigation.counters.stepsExecuted, 1);
    assert.equal((await direct.require(inv.id)).counters.stepsExecuted, 1);
    assert.equal(runs, 1, "the change ran once: the lost answer did not make it run again");
  });

  test("recordStepResult: the caller whose transaction landed gets created:true and its events", async () => {
    const inv = buildInvestigation();
    await direct.create(inv, []);
    const out = await loseTheAnswer(
      (mute) =>
        viaProxy.recordStepResult(inv.id, buildStepResult("step1"), (current) => {
          mute();
          return {
            investigation: stepCounted(current),
            events: [{ type: "step_finished", message: "step1 done", stepId: "step1" }],
          };
        }),
      async () => (await direct.getStepResult(inv.id, "step1")) !== undefined,
    );
    assert.equal(out.created, true);
    assert.deepEqual(
      out.events.map((e) => [e.seq, e.type]),
      [[1, "step_finished"]],
    );
    assert.equal((await direct.require(inv.id)).counters.stepsExecuted, 1);
    const again = await direct.recordStepResult(inv.id, buildStepResult("step1"), (current) => ({
      investigation: stepCounted(current),
    }));
    assert.equal(again.created, false);
    assert.deepEqual(again.events, []);
  });
});

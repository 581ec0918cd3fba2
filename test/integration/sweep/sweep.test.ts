import assert from "node:assert/strict";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import type { PubSub } from "@google-cloud/pubsub";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { createPubSub } from "../../../functions/src/adapters/pubsub/client.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { pullMessages } from "../../../functions/src/adapters/pubsub/pull.js";
import {
  SWEEP_WINDOW_MS,
  type SweepDeps,
  sweepIfDue,
  sweepStalled,
} from "../../../functions/src/app/sweep.js";
import { sweepCommand } from "../../../functions/src/cli/sweep.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import type { Investigation, InvestigationStatus } from "../../../functions/src/domain/investigation.js";
import { deadLetterSubscriptionName, ensureTopology } from "../../../functions/src/local/pubsub-setup.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { SWEEP_TICK, TOPICS } from "../../../functions/src/platform/topics.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation, buildStepResult } from "../firestore/builders.js";

/**
 * The sweep on the emulators: unfinished investigations that stopped changing end
 * needs_human with a reason and an event on investigation-events; finished or recently
 * changed ones are left alone; a repeat changes nothing; and ingest runs it once per window.
 */
const HOUR = 3_600_000;

describe("sweeping stalled investigations", { timeout: 120_000 }, () => {
  const clients: { db: Firestore; pubsub: PubSub }[] = [];

  /** A project of its own with the topics and a pull subscription on investigation events. */
  async function world(label: string) {
    const projectId = uniqueProjectId(label);
    const db = createFirestore({ projectId });
    const pubsub = createPubSub({ projectId });
    clients.push({ db, pubsub });
    await ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5, client: pubsub });
    const [sub] = await pubsub.topic(TOPICS.investigationEvents).createSubscription("sweep-events");
    const store = new FirestoreInvestigationStore(db);
    const deps: SweepDeps = {
      config: loadConfig({ env: {} }),
      store,
      bus: new PubSubEventBus(pubsub),
      logger: silentLogger,
      now: () => new Date(),
    };
    const events = async (n: number) =>
      (await pullMessages(pubsub, sub.name, { maxMessages: n, timeoutMs: 10_000 })).map(
        (m) => JSON.parse(m.data) as { investigationId: string; seq: number; type: string; message: string },
      );
    return { projectId, store, deps, events };
  }

  /** An investigation as the store holds it, last changed `ago` ms before now. */
  async function seed(
    store: FirestoreInvestigationStore,
    status: InvestigationStatus,
    ago: number,
    extra: Partial<Investigation> = {},
  ): Promise<Investigation> {
    const at = new Date(Date.now() - ago).toISOString();
    const inv: Investigation = {
      ...buildInvestigation({ createdAt: at }),
      status,
      updatedAt: at,
      deadlineAt: new Date(Date.now() - ago + 30 * 60_000).toISOString(),
      ...extra,
    };
    await store.create(inv, []);
    return inv;
  }

  before(async () => {
    await ensureEmulators();
  });

  after(async () => {
    for (const c of clients) {
      await c.db.terminate();
      await c.pubsub.close();
    }
  });

  test("marks only unfinished investigations unchanged past the deadline and the grace hour, once", async () => {
    const { store, deps, events } = await world("sweep");
    const running = await seed(store, "running", 3 * HOUR, { executionId: "exec-lost-1" });
    await store.recordStepResult(running.id, buildStepResult("audit-grant"), (current) => ({
      investigation: { ...current, updatedAt: running.updatedAt },
    }));
    const queued = await seed(store, "queued", 4 * HOUR);
    const concluded = await seed(store, "concluded", 5 * HOUR);
    const recent = await seed(store, "running", 30 * 60_000, { executionId: "exec-alive" });

    const report = await sweepStalled(deps);
    assert.deepEqual(report.marked, [queued.id, running.id], "oldest first");

    const after1 = await store.require(running.id);
    assert.equal(after1.status, "needs_human");
    assert.match(
      after1.reason ?? "",
      /^no progress for 180 min while running, past its deadline \(.+\): its workflow execution exec-lost-1 stopped without finishing it$/,
    );
    assert.match(
      (await store.require(queued.id)).reason ?? "",
      /no workflow execution was ever started for it/,
    );
    assert.equal((await store.require(concluded.id)).status, "concluded");
    assert.equal((await store.require(recent.id)).status, "running");
    // What the steps learned stays; the needs_human event goes out for the notifier.
    assert.equal((await store.listStepResults(running.id)).length, 1);
    const published = await events(2);
    assert.deepEqual(
      published.map((e) => [e.investigationId, e.type]).sort(),
      [
        [queued.id, "needs_human"],
        [running.id, "needs_human"],
      ].sort(),
    );

    // A repeat marks nothing; it sends the recent marks' events again (same seqs, so the
    // notifier posts nothing new), in case their first publish had failed.
    const again = await sweepStalled(deps);
    assert.deepEqual(again.marked, []);
    assert.equal(again.republished, 2);
    const resent = await events(2);
    assert.deepEqual(
      resent.map((e) => `${e.investigationId}:${e.seq}`).sort(),
      published.map((e) => `${e.investigationId}:${e.seq}`).sort(),
    );
  });

  test("the oldest stalled investigations go first when there are more than the limit", async () => {
    const { store, deps } = await world("sweep-limit");
    const ages = [5, 3, 7, 4, 6];
    const seeded = await Promise.all(ages.map((h) => seed(store, "running", h * HOUR)));
    const byAge = seeded.map((inv, i) => ({ id: inv.id, age: ages[i] ?? 0 })).sort((a, b) => b.age - a.age);
    const report = await sweepStalled(deps, { limit: 2, dryRun: true });
    assert.deepEqual(
      report.stalled,
      byAge.slice(0, 2).map((x) => x.id),
    );
    assert.deepEqual(report.marked, [], "a dry run marks nothing");
    const real = await sweepStalled(deps, { limit: 2 });
    assert.deepEqual(
      real.marked,
      byAge.slice(0, 2).map((x) => x.id),
    );
  });

  test("a mark whose event could not be published is sent by the next sweep", async () => {
    const { store, deps, events } = await world("sweep-publish");
    const stale = await seed(store, "running", 3 * HOUR, { executionId: "exec-x" });
    const down: SweepDeps = {
      ...deps,
      bus: { publish: async () => Promise.reject(new Error("Pub/Sub unreachable")) },
    };
    const first = await sweepStalled(down);
    assert.deepEqual(first.marked, [stale.id]);
    assert.deepEqual(first.failed, [stale.id]);
    assert.equal((await store.require(stale.id)).status, "needs_human", "the mark itself was committed");

    const next = await sweepStalled(deps);
    assert.deepEqual(next.marked, []);
    assert.equal(next.republished, 1);
    const [sent] = await events(1);
    assert.deepEqual([sent?.investigationId, sent?.type], [stale.id, "needs_human"]);
  });

  test("an investigation that changed after it was listed is left alone", async () => {
    const { store, deps } = await world("sweep-race");
    const stale = await seed(store, "running", 3 * HOUR);
    // It moves on between the listing and the sweep's transaction.
    await store.update(stale.id, (current) => ({
      investigation: { ...current, updatedAt: new Date().toISOString() },
    }));
    const racing: SweepDeps = {
      ...deps,
      store: Object.assign(Object.create(store) as FirestoreInvestigationStore, {
        listStalled: async () => [stale],
      }),
    };
    const report = await sweepStalled(racing);
    assert.deepEqual(report.stalled, [stale.id]);
    assert.deepEqual(report.marked, []);
    assert.equal((await store.require(stale.id)).status, "running");
  });

  test("sweepIfDue runs once per window, whoever calls it", async () => {
    const { store, deps } = await world("sweep-window");
    const stale = await seed(store, "planning", 3 * HOUR);
    const at = Math.floor(Date.now() / SWEEP_WINDOW_MS) * SWEEP_WINDOW_MS + 1_000;
    const first = await sweepIfDue({ ...deps, now: () => new Date(at) });
    const second = await sweepIfDue({ ...deps, now: () => new Date(at + 60_000) });
    assert.deepEqual(first?.marked, [stale.id]);
    assert.equal(second, undefined, "the window was taken");
    const next = await sweepIfDue({ ...deps, now: () => new Date(at + SWEEP_WINDOW_MS) });
    assert.ok(next, "the next window sweeps again");
    assert.deepEqual(next.marked, []);
  });

  test("ferret sweep: --dry-run lists and changes nothing; a run marks and says so", async () => {
    const { store, deps } = await world("sweep-cli");
    const stale = await seed(store, "concluding", 3 * HOUR);
    const lines: string[] = [];
    const run = (args: string[]) =>
      sweepCommand(() => ({ deps, close: async () => {} }), { line: (l) => lines.push(l) }).parseAsync(args, {
        from: "user",
      });

    await run(["--dry-run"]);
    assert.match(
      lines[0] ?? "",
      /^1 unfinished investigation\(s\) unchanged since .+ \(dry run: nothing changed\)$/,
    );
    assert.equal(lines[1], `stalled  ${stale.id}`);
    assert.equal((await store.require(stale.id)).status, "concluding");

    lines.length = 0;
    await run([]);
    assert.match(lines[0] ?? "", /marked needs_human: 1$/);
    assert.equal(lines[1], `needs_human  ${stale.id}`);
    assert.equal((await store.require(stale.id)).status, "needs_human");
  });
});

/** The wiring: a delivery to the ingest function (here a malformed one) runs the sweep after it. */
describe("ingest runs the sweep", { timeout: 120_000 }, () => {
  let server: Server | undefined;
  after(() => server?.close());

  test("a stalled investigation is marked needs_human after ingest handles a message", async () => {
    await ensureEmulators();
    const projectId = uniqueProjectId("sweep-ingest");
    Object.assign(process.env, {
      GOOGLE_CLOUD_PROJECT: projectId,
      FERRET_MODEL_PROVIDER: "offline",
      FERRET_LOG_LEVEL: "ERROR",
    });
    await ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
    const db = createFirestore({ projectId });
    const store = new FirestoreInvestigationStore(db);
    const at = new Date(Date.now() - 3 * HOUR).toISOString();
    const stale: Investigation = {
      ...buildInvestigation({ createdAt: at }),
      status: "running",
      executionId: "exec-gone",
      updatedAt: at,
    };
    await store.create(stale, []);

    const testing = await import("@google-cloud/functions-framework/testing");
    await import("../../../functions/src/index.js");
    server = testing.getTestServer("ingest");
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const res = await fetch(`${url}/projects/${projectId}/topics/${TOPICS.findings}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        message: { data: Buffer.from("not json").toString("base64"), messageId: "m-bad" },
        subscription: `projects/${projectId}/subscriptions/s`,
      }),
    });
    assert.ok(res.status >= 200 && res.status < 300, `ingest answered ${res.status}`);
    const swept = await store.require(stale.id);
    assert.equal(swept.status, "needs_human");
    assert.match(swept.reason ?? "", /exec-gone stopped without finishing it/);

    // Cloud Scheduler's tick (terraform/scheduler.tf) sweeps without waiting for a window,
    // and is not mistaken for a malformed finding.
    const later = { ...buildInvestigation({ createdAt: at }), status: "planning" as const, updatedAt: at };
    await store.create(later, []);
    const tick = await fetch(`${url}/projects/${projectId}/topics/${TOPICS.findings}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        message: {
          data: Buffer.from("{}").toString("base64"),
          attributes: { [SWEEP_TICK.attribute]: SWEEP_TICK.value },
          messageId: "m-tick",
        },
        subscription: `projects/${projectId}/subscriptions/s`,
      }),
    });
    assert.ok(tick.status >= 200 && tick.status < 300, `ingest answered ${tick.status}`);
    assert.equal((await store.require(later.id)).status, "needs_human");
    const pubsub = createPubSub({ projectId });
    const dead = await pullMessages(pubsub, deadLetterSubscriptionName(TOPICS.findings), {
      maxMessages: 5,
      timeoutMs: 2_000,
    });
    assert.deepEqual(
      dead.map((d) => d.attributes.reason ?? ""),
      ["invalid_input: the message data is not valid JSON"],
      "only the malformed message was dead-lettered, not the tick",
    );
    await pubsub.close();
    await db.terminate();
  });
});

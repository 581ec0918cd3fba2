import assert from "node:assert/strict";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import type { PubSub } from "@google-cloud/pubsub";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreGovernorStore } from "../../../functions/src/adapters/firestore/governor-store.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { createPubSub } from "../../../functions/src/adapters/pubsub/client.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { pullMessages } from "../../../functions/src/adapters/pubsub/pull.js";
import { announceFinished } from "../../../functions/src/app/governor.js";
import { type SweepDeps, sweepStalled } from "../../../functions/src/app/sweep.js";
import { SCHEDULED_SWEEP } from "../../../functions/src/app/sweep-request.js";
import { sweepCommand } from "../../../functions/src/cli/sweep.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import { queueEntryFor } from "../../../functions/src/domain/governor.js";
import type { Investigation, InvestigationStatus } from "../../../functions/src/domain/investigation.js";
import { deadLetterSubscriptionName, ensureTopology } from "../../../functions/src/local/pubsub-setup.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { TOPICS, type TopicName } from "../../../functions/src/platform/topics.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { buildInvestigation, buildStepResult } from "../../helpers/investigation-builders.js";

/**
 * The sweep on the emulators: unfinished investigations that stopped changing end
 * needs_human with a reason and an event on investigation-events; finished or recently
 * changed ones are left alone; a repeat changes nothing; and the sweep function runs it.
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

/** Posts one Pub/Sub push delivery to a function server, as the push subscription does. */
async function push(url: string, projectId: string, topic: string, message: Record<string, unknown>) {
  const res = await fetch(`${url}/projects/${projectId}/topics/${topic}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message, subscription: `projects/${projectId}/subscriptions/s` }),
  });
  assert.ok(res.status >= 200 && res.status < 300, `the function answered ${res.status}`);
}

function data(json: unknown): string {
  return Buffer.from(JSON.stringify(json)).toString("base64");
}

/**
 * The wiring: the sweep function (entry point `sweep`, fed by sweep-requests) sweeps on
 * Cloud Scheduler's request and drains the governor on a finished investigation's; ingest
 * does housekeeping no more, whatever a message's attributes say.
 */
describe("the sweep function", { timeout: 120_000 }, () => {
  const servers: Server[] = [];
  const projectId = uniqueProjectId("sweep-fn");
  let db: Firestore;
  let pubsub: PubSub;
  let store: FirestoreInvestigationStore;
  const urls: Record<string, string> = {};
  const at = new Date(Date.now() - 3 * HOUR).toISOString();
  const stalled = (status: InvestigationStatus): Investigation => ({
    ...buildInvestigation({ createdAt: at }),
    status,
    executionId: "exec-gone",
    updatedAt: at,
  });

  before(async () => {
    await ensureEmulators();
    Object.assign(process.env, {
      GOOGLE_CLOUD_PROJECT: projectId,
      FERRET_MODEL_PROVIDER: "offline",
      FERRET_LOG_LEVEL: "ERROR",
    });
    await ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
    db = createFirestore({ projectId });
    pubsub = createPubSub({ projectId });
    store = new FirestoreInvestigationStore(db);
    const testing = await import("@google-cloud/functions-framework/testing");
    await import("../../../functions/src/index.js");
    for (const name of ["sweep", "ingest"]) {
      const server = testing.getTestServer(name);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      servers.push(server);
      urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
  });

  after(async () => {
    for (const server of servers) server.close();
    await pubsub?.close();
    await db?.terminate();
  });

  async function deadLetters(topic: TopicName): Promise<string[]> {
    const dead = await pullMessages(pubsub, deadLetterSubscriptionName(topic), {
      maxMessages: 5,
      timeoutMs: 2_000,
    });
    return dead.map((d) => d.attributes.reason ?? "");
  }

  test("Cloud Scheduler's request (the body terraform/scheduler.tf publishes) marks a stalled investigation needs_human", async () => {
    const stale = stalled("running");
    await store.create(stale, []);
    await push(urls.sweep as string, projectId, TOPICS.sweep, {
      data: data(SCHEDULED_SWEEP),
      messageId: "m-tick",
    });
    const swept = await store.require(stale.id);
    assert.equal(swept.status, "needs_human");
    assert.match(swept.reason ?? "", /exec-gone stopped without finishing it/);
  });

  test("a finished investigation's request frees its governor slot", async () => {
    const governor = new FirestoreGovernorStore(db);
    const done = { ...stalled("concluded"), updatedAt: new Date().toISOString() };
    await store.create(done, []);
    const limits = loadConfig({ env: {} }).governor;
    await governor.enqueue(queueEntryFor(done.finding, done.id, new Date(), ""));
    const drained = await governor.drain(limits, new Date(), limits.maxConcurrent, []);
    assert.deepEqual(
      drained.admitted.map((a) => a.investigationId),
      [done.id],
    );
    assert.ok(done.id in (await governor.state()).running, "the slot is taken before the request");

    const sent: { topic: string; data: unknown }[] = [];
    await announceFinished(
      {
        publish: async (topic, json) => {
          sent.push({ topic, data: json });
          return "id";
        },
      },
      done.id,
    );
    assert.deepEqual(sent, [{ topic: TOPICS.sweep, data: { kind: "finished", investigationId: done.id } }]);
    await push(urls.sweep as string, projectId, TOPICS.sweep, {
      data: data(sent[0]?.data),
      messageId: "m-done",
    });
    assert.ok(!(done.id in (await governor.state()).running), "the sweep function released the slot");
  });

  test("a request that is neither is dead-lettered with the reason, and sweeps nothing", async () => {
    const stale = stalled("planning");
    await store.create(stale, []);
    await push(urls.sweep as string, projectId, TOPICS.sweep, {
      data: data({ kind: "purge", investigationId: stale.id }),
      messageId: "m-odd",
    });
    assert.equal((await store.require(stale.id)).status, "planning");
    const reasons = await deadLetters(TOPICS.sweep);
    assert.equal(reasons.length, 1);
    assert.match(reasons[0] ?? "", /^invalid_input: not a sweep request: kind: /);
  });

  test("ingest: a message carrying the retired ferret-task attribute is a malformed finding, dead-lettered; nothing is swept", async () => {
    const stale = stalled("concluding");
    await store.create(stale, []);
    for (const value of ["sweep", "drain"])
      await push(urls.ingest as string, projectId, TOPICS.findings, {
        data: data(value === "drain" ? { investigationId: stale.id } : {}),
        attributes: { "ferret-task": value },
        messageId: `m-${value}`,
      });
    assert.equal((await store.require(stale.id)).status, "concluding", "ingest swept nothing");
    const reasons = await deadLetters(TOPICS.findings);
    assert.equal(reasons.length, 2, `both dead-lettered: ${reasons.join(" | ")}`);
    for (const reason of reasons) assert.match(reason, /^invalid_input: not an SCC notification: /);
  });
});

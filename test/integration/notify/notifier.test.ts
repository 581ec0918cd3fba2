import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { SlackChatSink } from "../../../functions/src/adapters/slack/slack-chat-sink.js";
import { isRetryable } from "../../../functions/src/domain/errors.js";
import type { InvestigationEvent } from "../../../functions/src/domain/investigation.js";
import { ZERO_USAGE } from "../../../functions/src/domain/results.js";
import { handleInvestigationEvent, type NotifierDeps } from "../../../functions/src/notify/notifier.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import * as fx from "../../unit/notify/fixtures.js";

/**
 * The notifier end to end with nothing mocked: the Firestore emulator holds the investigation
 * and the claims, the real SlackChatSink posts over HTTP to a local Web API receiver.
 */

const TOKEN = "xoxb-integration-0000-abcdef";
const NOW = new Date("2026-03-01T12:00:00.000Z");
const clients: Firestore[] = [];
let projectId: string;
let receiver: SlackReceiver;

function independentStore(): FirestoreInvestigationStore {
  const db = createFirestore({ projectId });
  clients.push(db);
  return new FirestoreInvestigationStore(db, { now: () => NOW });
}

/** Each delivery is its own "function instance": its own Firestore client and Slack client. */
function instance(channel: string): NotifierDeps {
  return {
    store: independentStore(),
    sink: new SlackChatSink({
      token: TOKEN,
      channel,
      slackApiUrl: receiver.url,
      retry: { retries: 2, minTimeoutMs: 10, maxTimeoutMs: 20 },
    }),
    logger: silentLogger,
  };
}

/** Pub/Sub's side: a retryable failure is redelivered (here after a short pause). */
async function deliver(event: InvestigationEvent, deps: NotifierDeps): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await handleInvestigationEvent(event, deps);
      return;
    } catch (error) {
      if (!isRetryable(error) || attempt >= 40) throw error;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** Runs an investigation through the real store so the events are the ones it appends. */
async function seedInvestigation(): Promise<InvestigationEvent[]> {
  const store = independentStore();
  const id = `inv-${randomBytes(12).toString("hex")}`;
  const counters = { revisions: 0, consecutiveFailures: 0, stepsExecuted: 0, waves: 0, usage: ZERO_USAGE };
  const base = fx.investigation({ id, status: "queued", plan: undefined, counters, eventSeq: 0 });
  await store.create(base, [{ type: "created", message: "finding received" }]);
  await store.update(id, (cur) => ({
    investigation: { ...cur, status: "running", plan: fx.plan() },
    events: [{ type: "planned", message: "plan with 2 steps" }],
  }));
  await store.update(id, (cur) => ({
    investigation: cur,
    events: [{ type: "step_started", stepId: "audit-grant", message: "audit-grant started" }],
  }));
  await store.recordStepResult(id, fx.stepResult(), (cur) => ({
    investigation: { ...cur, counters: { ...cur.counters, stepsExecuted: 1 } },
    events: [{ type: "step_finished", stepId: "audit-grant", message: "audit-grant done" }],
  }));
  await store.recordReflection(id, fx.reflection(), (cur) => ({
    investigation: cur,
    events: [{ type: "reflected", message: "wave 1 reflected" }],
  }));
  await store.update(id, (cur) => ({
    investigation: { ...cur, status: "concluded", conclusion: fx.conclusion() },
    events: [{ type: "concluded", message: "true positive" }],
  }));
  return store.listEvents(id);
}

before(async () => {
  await ensureEmulators();
  projectId = uniqueProjectId("notifier");
  receiver = await startSlackReceiver({ token: TOKEN });
});

after(async () => {
  await receiver.close();
  await Promise.all(clients.map((c) => c.terminate()));
});

const postsTo = (channel: string) => receiver.posts().filter((p) => p.args.channel === channel);

describe("notifier on the Firestore emulator and a local Slack receiver", () => {
  test("the same event delivered three times is posted once", async () => {
    const events = await seedInvestigation();
    const created = events.find((e) => e.type === "created");
    assert.ok(created);
    const deps = instance("C-three-times");
    for (let i = 0; i < 3; i += 1) await deliver(created, deps);

    const posts = postsTo("C-three-times");
    assert.equal(posts.length, 1);
    assert.equal(posts[0]?.args.thread_ts, undefined);
    assert.equal(posts[0]?.authorization, `Bearer ${TOKEN}`);
    assert.equal(posts[0]?.args.unfurl_links, false);
  });

  test("three instances racing on one event post it once", async () => {
    const events = await seedInvestigation();
    const finished = events.find((e) => e.type === "step_finished");
    assert.ok(finished);
    await Promise.all([1, 2, 3].map(() => deliver(finished, instance("C-race"))));

    const posts = postsTo("C-race");
    assert.equal(posts.length, 2, "the thread root and one reply");
    const [root, reply] = [posts.find((p) => !p.args.thread_ts), posts.find((p) => p.args.thread_ts)];
    assert.ok(root && reply);
    assert.match(String(reply.args.text), /^Step audit-grant done: /);
  });

  test("all events of an investigation, shuffled and duplicated: one root, every reply in its thread", async () => {
    const events = await seedInvestigation();
    assert.deepEqual(
      events.map((e) => [e.seq, e.type]),
      [
        [1, "created"],
        [2, "planned"],
        [3, "step_started"],
        [4, "step_finished"],
        [5, "reflected"],
        [6, "concluded"],
      ],
    );
    const deliveries = [...events, ...events, ...events].sort(() => Math.random() - 0.5);
    await Promise.all(deliveries.map((e) => deliver(e, instance("C-thread"))));

    const posts = postsTo("C-thread");
    const roots = posts.filter((p) => p.args.thread_ts === undefined);
    assert.equal(roots.length, 1);
    const rootTs = roots[0]?.answer.ts;
    assert.equal(typeof rootTs, "string");
    const replies = posts.filter((p) => p.args.thread_ts !== undefined);
    // The root already shows the plan and step_started is never posted.
    assert.equal(replies.length, 3);
    for (const reply of replies) assert.equal(reply.args.thread_ts, rootTs);
    assert.deepEqual(replies.map((r) => String(r.args.text).split(" ")[0]).sort(), [
      "Reflection",
      "Step",
      "🚨",
    ]);
  });
});

import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { ChatError, ConflictError, NotFoundError } from "../../../functions/src/domain/errors.js";
import type { Investigation, InvestigationEvent } from "../../../functions/src/domain/investigation.js";
import { handleInvestigationEvent, type NotifierDeps } from "../../../functions/src/notify/notifier.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import * as fx from "./fixtures.js";
import { MemoryClaimStore, RecordingSink } from "./memory-claims.js";

const ID = "inv-0123456789abcdef01234567";

describe("handleInvestigationEvent (claim protocol, in-memory claims)", () => {
  let store: MemoryClaimStore;
  let sink: RecordingSink;
  let clock: Date;
  let deps: NotifierDeps;
  let seq: number;
  let naps: number[];

  const ev = (
    type: InvestigationEvent["type"],
    extra: Partial<InvestigationEvent> = {},
  ): InvestigationEvent => {
    seq += 1;
    return fx.event({ investigationId: ID, seq, type, message: `${type} #${seq}`, ...extra });
  };
  const put = (inv: Investigation) => store.investigations.set(inv.id, inv);

  beforeEach(() => {
    store = new MemoryClaimStore();
    sink = new RecordingSink();
    clock = new Date("2024-05-01T10:05:00Z");
    naps = [];
    // Waiting for a post in flight advances the test's clock and lets the holder run.
    const sleep = async (ms: number) => {
      naps.push(ms);
      clock = new Date(clock.getTime() + ms);
      await new Promise((r) => setImmediate(r));
    };
    deps = { store, sink, logger: silentLogger, now: () => clock, sleep };
    seq = 0;
    put(fx.investigation());
    store.results.set(ID, [fx.stepResult()]);
    store.reflections.set(ID, [fx.reflection()]);
  });

  it("posts the root once when the same event is delivered three times", async () => {
    const created = ev("created");
    const outcomes = [];
    for (let i = 0; i < 3; i += 1) outcomes.push(await handleInvestigationEvent(created, deps));
    assert.equal(sink.posted.length, 1);
    assert.equal(sink.posted[0]?.threadTs, undefined);
    assert.deepEqual(
      outcomes.map((o) => [o.root, o.reply, o.rootTs]),
      [
        ["posted", "skipped", "1714557600.000001"],
        ["existing", "skipped", "1714557600.000001"],
        ["existing", "skipped", "1714557600.000001"],
      ],
    );
  });

  it("threads every reply under the one root and posts each event once", async () => {
    const events = [
      ev("created"),
      ev("planned"),
      ev("step_started", { stepId: "audit-grant" }),
      ev("step_finished", { stepId: "audit-grant", at: "2024-05-01T10:01:15.000Z" }),
      ev("reflected", { at: "2024-05-01T10:01:20.000Z" }),
      ev("compressed"),
    ];
    put(fx.investigation({ status: "concluded", conclusion: fx.conclusion() }));
    events.push(ev("concluded"));
    for (const e of [...events, ...events]) await handleInvestigationEvent(e, deps);

    const [root, ...replies] = sink.posted;
    assert.ok(root);
    assert.equal(root.threadTs, undefined);
    assert.equal(root.text, renderedRootText());
    // planned: no reply, the root already showed the plan; step_started: never posted.
    assert.deepEqual(
      replies.map((r) => r.threadTs),
      [root.ts, root.ts, root.ts, root.ts],
    );
    const expectedStarts = [
      "Step audit-grant done: alice[@]example[.]com granted",
      "Reflection after wave 1: objective not yet achieved",
      "🗜️ *Context compressed:* compressed #6",
      "🚨 True positive (85%) — Persistence: IAM Anomalous Grant",
    ];
    assert.equal(replies.length, expectedStarts.length);
    for (const [i, r] of replies.entries()) assert.ok(r.text.startsWith(expectedStarts[i] ?? "?"), r.text);
    assert.deepEqual(
      [...store.claims.keys()].filter((k) => k.startsWith("slack-event-posted/")).sort(),
      [4, 5, 6, 7].map((n) => `slack-event-posted/${ID}:${n}`),
    );
  });

  it("posts the plan as a reply when the root went out before the plan existed", async () => {
    put(fx.investigation({ plan: undefined, status: "planning" }));
    await handleInvestigationEvent(ev("created"), deps);
    put(fx.investigation());
    await handleInvestigationEvent(ev("planned"), deps);
    assert.equal(sink.posted.length, 2);
    assert.equal(sink.posted[1]?.threadTs, sink.posted[0]?.ts);
    assert.equal(sink.posted[1]?.text, "Plan: Decide whether the owner grant on prod-payments was malicious");
    assert.deepEqual(store.claims.get(`slack-root-posted/${ID}`), {
      plan: "absent",
      ts: "1714557600.000001",
      attempt: "1",
      postedAt: "2024-05-01T10:05:00.000Z",
    });
  });

  it("a racing delivery waits in-process for the root being posted, then threads under it", async () => {
    const release = sink.hold();
    const first = handleInvestigationEvent(ev("created"), deps);
    await new Promise((r) => setImmediate(r));
    const second = handleInvestigationEvent(ev("step_finished", { stepId: "audit-grant" }), deps);
    // Let the second delivery find the root's attempt pending and look again a few times.
    while (naps.length < 3) await new Promise((r) => setImmediate(r));
    assert.equal(sink.posted.length, 0);
    release();
    const [root, reply] = await Promise.all([first, second]);
    assert.equal(root.root, "posted");
    assert.deepEqual([reply.root, reply.reply], ["existing", "posted"]);
    assert.equal(sink.posted.length, 2);
    assert.equal(sink.posted[1]?.threadTs, sink.posted[0]?.ts);
    assert.ok(naps.every((ms) => ms <= 500));
  });

  it("hands the wait to Pub/Sub (retryable ConflictError) when the root is still in flight after holderWaitMs", async () => {
    const release = sink.hold();
    const first = handleInvestigationEvent(ev("created"), deps);
    await new Promise((r) => setImmediate(r));
    const startedAt = clock.getTime();
    const second = await handleInvestigationEvent(ev("step_finished", { stepId: "audit-grant" }), deps).catch(
      (e: unknown) => e,
    );
    assert.ok(second instanceof ConflictError);
    assert.equal(second.retryable, true);
    // It waited the default 15 s of (test) time, no more.
    assert.equal(clock.getTime() - startedAt, 15_000);
    release();
    await first;
    // Pub/Sub redelivers the second event: it now threads under the root.
    const redelivered = await handleInvestigationEvent(
      fx.event({ investigationId: ID, seq: 2, type: "step_finished", stepId: "audit-grant" }),
      deps,
    );
    assert.equal(redelivered.reply, "posted");
    assert.equal(sink.posted.length, 2);
    assert.equal(sink.posted[1]?.threadTs, sink.posted[0]?.ts);
  });

  it("retries a failed post on the next delivery without waiting, and posts once", async () => {
    sink.failNext(new ChatError("Slack answered HTTP 503 to chat.postMessage", true));
    const created = ev("created");
    const error = await handleInvestigationEvent(created, deps).catch((e: unknown) => e);
    assert.ok(error instanceof ChatError && error.retryable);
    assert.equal(sink.posted.length, 0);
    assert.equal(
      store.claims.get(`slack-root-failed/${ID}`)?.error,
      "Slack answered HTTP 503 to chat.postMessage",
    );

    const outcome = await handleInvestigationEvent(created, deps);
    assert.equal(outcome.root, "posted");
    assert.equal(sink.posted.length, 1);
    assert.equal(store.claims.get(`slack-root-posted/${ID}`)?.attempt, "2");
  });

  it("surfaces a non-retryable Slack error as non-retryable", async () => {
    sink.failNext(new ChatError("Slack refused chat.postMessage: invalid_auth", false));
    const error = await handleInvestigationEvent(ev("created"), deps).catch((e: unknown) => e);
    assert.ok(error instanceof ChatError);
    assert.equal(error.retryable, false);
  });

  it("after a crash between post and record, waits until the attempt is stale, then posts again", async () => {
    const created = ev("created");
    store.failClaimOn = "slack-root-posted";
    // The record write fails once and is retried in-process, so this delivery still succeeds.
    await handleInvestigationEvent(created, deps);
    assert.equal(sink.posted.length, 1);

    // Now simulate the process dying after the post: a pending attempt and no record.
    store.claims.delete(`slack-root-posted/${ID}`);
    const early = await handleInvestigationEvent(created, deps).catch((e: unknown) => e);
    assert.ok(early instanceof ConflictError, "the attempt may still be in flight");
    assert.equal(sink.posted.length, 1);

    // The wait above ran the clock 15 s on; the attempt goes stale 2 min after its claim.
    clock = new Date(Date.parse("2024-05-01T10:05:00Z") + 2 * 60_000);
    const late = await handleInvestigationEvent(created, deps);
    assert.equal(late.root, "posted");
    // At-least-once: the root was posted twice, and every later reply uses the new record.
    assert.equal(sink.posted.length, 2);
    assert.equal(store.claims.get(`slack-root-posted/${ID}`)?.ts, sink.posted[1]?.ts);
  });

  it("gives up with a non-retryable error after the attempt budget", async () => {
    deps.policy = { maxAttempts: 2 };
    const created = ev("created");
    for (let i = 0; i < 2; i += 1) {
      sink.failNext(new ChatError("Slack answered HTTP 503 to chat.postMessage", true));
      await handleInvestigationEvent(created, deps).catch(() => {});
    }
    const error = await handleInvestigationEvent(created, deps).catch((e: unknown) => e);
    assert.ok(error instanceof ChatError);
    assert.equal(error.retryable, false);
    assert.equal(error.message, `slack-root ${ID}: gave up after 2 attempts`);
  });

  it("skips step_started without touching the store, and rejects unknown investigations", async () => {
    const skipped = await handleInvestigationEvent(ev("step_started"), {
      ...deps,
      store: new MemoryClaimStore(),
    });
    assert.deepEqual(skipped, {
      investigationId: ID,
      seq: 1,
      type: "step_started",
      root: "not_needed",
      reply: "skipped",
    });
    const missing = await handleInvestigationEvent(
      fx.event({ investigationId: "inv-ffffffffffffffffffffffff", type: "created" }),
      deps,
    ).catch((e: unknown) => e);
    assert.ok(missing instanceof NotFoundError);
    assert.equal(sink.posted.length, 0);
  });

  it("renders needs_human from the stored step results", async () => {
    put(
      fx.investigation({ status: "needs_human", reason: "the token budget is used up (200000 of 200000)" }),
    );
    await handleInvestigationEvent(ev("needs_human"), deps);
    const reply = sink.posted[1];
    assert.equal(reply?.threadTs, sink.posted[0]?.ts);
    assert.equal(
      reply?.text,
      "🙋 Needs a human — Persistence: IAM Anomalous Grant: the token budget is used up (200000 of 200000)",
    );
    assert.ok(
      fx
        .allTexts(reply?.blocks)
        .some((t) => t.startsWith("*What was learned so far*\n• *audit-grant* (done)")),
    );
  });
});

function renderedRootText(): string {
  return "ferret is investigating 🟠 HIGH Persistence: IAM Anomalous Grant on //cloudresourcemanager.googleapis[.]com/projects/prod-payments";
}

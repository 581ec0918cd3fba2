import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { createPubSub } from "../../../functions/src/adapters/pubsub/client.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { pullMessages } from "../../../functions/src/adapters/pubsub/pull.js";
import { eventMessage } from "../../../functions/src/app/publish.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { type Investigation, TERMINAL_STATUSES } from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { deadLetterSubscriptionName } from "../../../functions/src/local/pubsub-setup.js";
import { type LocalStack, startLocalStack } from "../../../functions/src/local/stack.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { TOPICS } from "../../../functions/src/platform/topics.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import { startTcpProxy, type TcpProxy } from "../../helpers/tcp-proxy.js";
import { waitFor } from "../../helpers/wait-for.js";
import { figure } from "./support/figures.js";
import { type Variant, variantOf } from "./support/findings.js";
import { type HttpFaultProxy, type ProxyAction, startHttpFaultProxy } from "./support/http-fault-proxy.js";
import { ledgerOf } from "./support/integrity.js";
import { repliesOwed, threadOf } from "./support/slack-thread.js";

/**
 * Faults on the whole local stack (emulators, one functions-framework process per entry
 * point, the local executions service running workflows/investigate.yaml), offline model:
 * duplicate deliveries, answers lost after the work was committed, a function server killed
 * mid-step, Firestore unreachable. Every investigation must end concluded or needs_human
 * with a reason, each effect stored exactly once, each Slack message posted once.
 */
const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));
const base = scenario.notification as JsonObject;
const TOKEN = "xoxb-test-stack-faults";

interface ExecutionList {
  executions: { name: string; argument: string; state: string }[];
}

const forward: ProxyAction = { kind: "forward" };
const idOf = (body: unknown) => (body as { investigationId?: string } | undefined)?.investigationId;

describe("faults on the local stack", { timeout: 900_000 }, () => {
  let stack: LocalStack;
  let store: FirestoreInvestigationStore;
  let db: Firestore;
  let bus: PubSubEventBus;
  let slack: SlackReceiver;
  let firestoreProxy: TcpProxy;
  let stepProxy: HttpFaultProxy;
  let reflectorProxy: HttpFaultProxy;
  const targets: Record<string, string> = {};
  const projectId = uniqueProjectId("stack-faults");
  /** Investigations that went through a fault, for the summary figure. */
  const faulted: { fault: string; id: string }[] = [];

  const finished = (id: string, timeoutMs = 180_000) =>
    waitFor(
      `investigation ${id} to finish`,
      async () => {
        const inv = await store.get(id);
        return inv && TERMINAL_STATUSES.includes(inv.status) ? inv : undefined;
      },
      timeoutMs,
    );
  const executions = async () =>
    ((await (await fetch(`${stack.executionsUrl}/v1/executions`)).json()) as ExecutionList).executions;
  const logLines = (name: string, needle: string) =>
    readFileSync(join(stack.logDir, `${name}.log`), "utf8")
      .split("\n")
      .filter((l) => l.includes(needle)).length;

  /** Waits until the notifier has posted everything it owes for the investigation, then checks once-only. */
  const settledThread = async (id: string) => {
    const events = await store.listEvents(id);
    const owed = await repliesOwed(store, id, events);
    const thread = await waitFor(`Slack replies for ${id}`, async () => {
      const t = threadOf(slack.posts(), id);
      return t.roots.length >= 1 && t.replies.length >= owed ? t : undefined;
    });
    return { owed, thread };
  };

  before(async () => {
    const emulators = await ensureEmulators();
    firestoreProxy = await startTcpProxy(emulators.firestoreHost);
    slack = await startSlackReceiver({ token: TOKEN });
    stepProxy = await startHttpFaultProxy(() => targets.stepExecutor as string);
    reflectorProxy = await startHttpFaultProxy(() => targets.reflector as string);
    stack = await startLocalStack({
      projectId,
      workDir: mkdtempSync(join(tmpdir(), "ferret-stack-faults-")),
      env: {
        FERRET_MODEL_PROVIDER: "offline",
        FERRET_DUCKDB_DIR: scenario.logsDir as string,
        FERRET_STIX_BUNDLE: scenario.stixBundle as string,
        SLACK_BOT_TOKEN: TOKEN,
        FERRET_SLACK_CHANNEL: "C0FERRET",
        FERRET_SLACK_API_URL: slack.url,
        // The function servers reach Firestore through a proxy the tests can cut; this test
        // process talks to the emulator directly, so it can watch through an outage.
        FIRESTORE_EMULATOR_HOST: firestoreProxy.host,
      },
      routeForWorkflow: (name, url) => {
        targets[name] = url;
        if (name === "stepExecutor") return stepProxy.url;
        if (name === "reflector") return reflectorProxy.url;
        return url;
      },
    });
    db = createFirestore({ projectId });
    store = new FirestoreInvestigationStore(db);
    bus = new PubSubEventBus(projectId);
  });

  after(async () => {
    await bus?.close();
    await stack?.stop();
    await Promise.all([stepProxy?.close(), reflectorProxy?.close(), firestoreProxy?.close(), slack?.close()]);
  });

  test("a burst of 30 publishes of 10 findings creates 10 investigations, 10 executions and one Slack message per event", async (t) => {
    const findings = Array.from({ length: 10 }, (_, i) => variantOf(base, `-burst-${i}`));
    // Five findings delivered four times, five twice: 30 deliveries, all at once, interleaved.
    const deliveries: Variant[] = [];
    for (let round = 0; round < 4; round++) {
      findings.forEach((v, i) => {
        if (round < (i < 5 ? 4 : 2)) deliveries.push(v);
      });
    }
    await Promise.all(deliveries.map((v) => bus.publish(TOPICS.findings, v.notification)));
    const outcomes = await Promise.all(findings.map((v) => finished(v.id)));
    for (const v of findings) faulted.push({ fault: "duplicate delivery", id: v.id });

    const docs = await db
      .collection("investigations")
      .where(
        "finding.name",
        "in",
        findings.map((v) => v.name),
      )
      .get();
    const runs = (await executions()).filter((e) => findings.some((v) => e.argument.includes(v.id)));
    figure(
      t,
      "notifications published (with duplicates) → investigations created (unique findings)",
      `${deliveries.length} (${findings.length} unique) → ${docs.size}`,
    );
    figure(t, "workflow executions started for the burst", runs.length);
    assert.equal(docs.size, findings.length, "one investigation per unique finding");
    assert.equal(runs.length, findings.length, "one workflow execution per investigation");
    assert.deepEqual(
      outcomes.map((o) => o.status),
      findings.map(() => "concluded"),
    );

    let posts = 0;
    let owedTotal = 0;
    for (const v of findings) {
      const ledger = await ledgerOf(store, v.id);
      assert.deepEqual(ledger.problems, [], `${v.id}: exactly-once invariants`);
      const { owed } = await settledThread(v.id);
      owedTotal += owed;
    }
    await sleep(3_000); // a late duplicate post would show up here
    for (const v of findings) {
      const thread = threadOf(slack.posts(), v.id);
      assert.equal(thread.roots.length, 1, `${v.id}: one thread root`);
      const owed = await repliesOwed(store, v.id, await store.listEvents(v.id));
      assert.equal(thread.replies.length, owed, `${v.id}: one reply per event`);
      posts += thread.replies.length;
    }
    figure(t, "Slack replies posted for the burst / replies owed (one per event)", `${posts} / ${owedTotal}`);

    // A duplicate arriving after the investigation concluded starts nothing either.
    const late = findings[0] as Variant;
    const before = slack.posts().length;
    // Counted from ingest's per-message outcome line: in-burst repeats are answered by the
    // governor's queue, a late one by the launch claim, and both say `duplicate`.
    const duplicatesBefore = logLines("ingest", '"outcome":"duplicate"');
    await Promise.all([1, 2].map(() => bus.publish(TOPICS.findings, late.notification)));
    await waitFor("ingest to see the late duplicates", async () =>
      logLines("ingest", '"outcome":"duplicate"') >= duplicatesBefore + 2 ? true : undefined,
    );
    assert.equal((await executions()).filter((e) => e.argument.includes(late.id)).length, 1);
    assert.equal(slack.posts().length, before, "no Slack post for a late duplicate");
  });

  test("investigation events delivered three times each reach Slack once", async (t) => {
    const v = variantOf(base, "-burst-0");
    const events = await store.listEvents(v.id);
    const owed = await repliesOwed(store, v.id, events);
    const postsBefore = slack.posts().length;
    const seenBefore = logLines("notifier", '"reply":"already_posted"');
    const client = createPubSub({ projectId });
    await Promise.all(
      events.flatMap((e) =>
        [1, 2, 3].map(() =>
          client.topic(TOPICS.investigationEvents).publishMessage({ json: eventMessage(e) }),
        ),
      ),
    );
    await client.close();
    await waitFor("the notifier to handle every redelivery", async () =>
      logLines("notifier", '"reply":"already_posted"') >= seenBefore + owed * 3 ? true : undefined,
    );
    const newPosts = slack.posts().length - postsBefore;
    figure(t, "investigation-event redeliveries → new Slack posts", `${events.length * 3} → ${newPosts}`);
    assert.equal(newPosts, 0);
  });

  test("a step call whose answer is lost after the result was written is retried without a second effect", async (t) => {
    const v = variantOf(base, "-lost-step-answer");
    let lost = false;
    stepProxy.setPolicy((body) => {
      if (lost || idOf(body) !== v.id) return forward;
      lost = true;
      return { kind: "lose", status: 504 };
    });
    await bus.publish(TOPICS.findings, v.notification);
    const inv = await finished(v.id);
    stepProxy.setPolicy(() => forward);
    faulted.push({ fault: "step answer lost after commit (504)", id: v.id });

    const calls = stepProxy.calls.filter((c) => idOf(c.body) === v.id);
    const first = calls.find((c) => c.action === "lose");
    assert.ok(first, "the fault was injected");
    const stepId = (first.body as { stepId: string }).stepId;
    assert.equal(
      (first.upstreamBody as { executed?: boolean }).executed,
      true,
      "the first call did the work",
    );
    const retries = calls.filter((c) => c !== first && (c.body as { stepId: string }).stepId === stepId);
    assert.ok(retries.length >= 1, "the workflow retried the call");
    assert.ok(
      retries.every((c) => (c.upstreamBody as { executed?: boolean }).executed === false),
      "the retry found the stored result and executed nothing",
    );
    const ledger = await ledgerOf(store, v.id);
    assert.deepEqual(ledger.problems, []);
    assert.equal(ledger.results.filter((r) => r.stepId === stepId).length, 1);
    figure(
      t,
      "step calls for the step whose answer was lost → results stored",
      `${retries.length + 1} → ${ledger.results.filter((r) => r.stepId === stepId).length}`,
    );
    assert.equal(inv.status, "concluded");
  });

  test("a reflector call repeated after its connection dropped reflects once per wave", async (t) => {
    const v = variantOf(base, "-dropped-advance");
    let dropped = false;
    reflectorProxy.setPolicy((body) => {
      if (dropped || idOf(body) !== v.id) return forward;
      dropped = true;
      return { kind: "drop" };
    });
    await bus.publish(TOPICS.findings, v.notification);
    const inv = await finished(v.id);
    reflectorProxy.setPolicy(() => forward);
    faulted.push({ fault: "reflector connection dropped after commit", id: v.id });

    const calls = reflectorProxy.calls.filter((c) => idOf(c.body) === v.id);
    const first = calls.find((c) => c.action === "drop");
    assert.ok(first && first.upstreamStatus === 200, "the dropped call had completed in the function");
    const wave = (first.body as { wave: number }).wave;
    const sameWave = calls.filter((c) => (c.body as { wave: number }).wave === wave);
    assert.ok(sameWave.length >= 2, "the workflow repeated the call");
    assert.deepEqual(
      sameWave.at(-1)?.upstreamBody,
      first.upstreamBody,
      "the repeat answers the first call's decision",
    );
    const ledger = await ledgerOf(store, v.id);
    assert.deepEqual(ledger.problems, []);
    figure(
      t,
      "reflector calls for the wave whose answer was dropped → reflections stored for it",
      `${sameWave.length} → ${ledger.reflections.filter((r) => r.wave === wave).length}`,
    );
    assert.ok(ledger.reflections.filter((r) => r.wave === wave).length <= 1);
    assert.equal(inv.status, "concluded");
  });

  test("the step executor killed with SIGKILL mid-step is restarted and the step runs to one result", async (t) => {
    const v = variantOf(base, "-killed-mid-step");
    let killedAt: number | undefined;
    let killedStep: string | undefined;
    let restart: Promise<void> | undefined;
    const unsubscribe = db.doc(`investigations/${v.id}`).onSnapshot((snap) => {
      const steps = (snap.data() as Investigation | undefined)?.plan?.steps ?? [];
      const running = steps.find((s) => s.status === "running");
      if (killedAt !== undefined || !running) return;
      killedAt = Date.now();
      killedStep = running.id;
      restart = stack.restartFunction("stepExecutor", "SIGKILL");
    });
    try {
      await bus.publish(TOPICS.findings, v.notification);
      await waitFor("a step to start", async () => (restart ? true : undefined), 60_000);
      await restart;
      const restartedAfterMs = Date.now() - (killedAt as number);
      const inv = await finished(v.id);
      faulted.push({ fault: "stepExecutor SIGKILLed mid-step", id: v.id });
      const ledger = await ledgerOf(store, v.id);
      assert.deepEqual(ledger.problems, []);
      const result = ledger.results.find((r) => r.stepId === killedStep);
      assert.ok(result, "the killed step has a result");
      const brokenCalls = stepProxy.calls.filter(
        (c) => idOf(c.body) === v.id && c.answered === "upstream-error",
      ).length;
      // The result was produced after the kill: the killed process never finished the step.
      const midStep = Date.parse(result.finishedAt) > (killedAt as number);
      t.diagnostic(
        `killed during step ${killedStep}; restarted in ${restartedAfterMs} ms; calls broken by the kill: ${brokenCalls}; ` +
          `result finished after the kill: ${midStep}; outcome ${inv.status}`,
      );
      figure(t, "step executor killed mid-step → investigation", `${inv.status} (${inv.reason ?? ""})`);
      assert.ok(midStep, "the kill landed before the step's result was written");
      assert.ok(brokenCalls >= 1, "the workflow's call was cut by the kill");
      assert.ok(TERMINAL_STATUSES.includes(inv.status) && inv.status !== "failed", `ended ${inv.status}`);
    } finally {
      unsubscribe();
    }
  });

  test("Firestore unreachable for a while, mid-investigation and during ingest: both investigations finish", async (t) => {
    const mid = variantOf(base, "-firestore-outage-mid");
    const during = variantOf(base, "-firestore-outage-ingest");
    await bus.publish(TOPICS.findings, mid.notification);
    await waitFor("the first step result", async () =>
      (await store.listStepResults(mid.id)).length > 0 ? true : undefined,
    );
    const outageMs = 8_000;
    firestoreProxy.cut();
    const cutAt = Date.now();
    await bus.publish(TOPICS.findings, during.notification);
    await sleep(outageMs);
    firestoreProxy.restore();
    t.diagnostic(
      `Firestore unreachable for ${Date.now() - cutAt} ms; ${firestoreProxy.refused} connection(s) reset or refused`,
    );
    const outcomes = await Promise.all([finished(mid.id), finished(during.id)]);
    faulted.push({ fault: "Firestore unreachable mid-investigation", id: mid.id });
    faulted.push({ fault: "Firestore unreachable during ingest", id: during.id });
    for (const inv of outcomes) {
      const ledger = await ledgerOf(store, inv.id);
      assert.deepEqual(ledger.problems, [], `${inv.id}: exactly-once invariants`);
      assert.ok(inv.status === "concluded" || (inv.status === "needs_human" && inv.reason), `${inv.status}`);
      await settledThread(inv.id);
    }
    const client = createPubSub({ projectId });
    const dead = await pullMessages(client, deadLetterSubscriptionName(TOPICS.investigationEvents), {
      maxMessages: 100,
      timeoutMs: 3_000,
    });
    await client.close();
    figure(t, "investigation events dead-lettered by the Firestore outage", dead.length);
    figure(
      t,
      "Firestore outage → investigations",
      outcomes.map((o) => `${o.status}${o.reason ? ` (${o.reason})` : ""}`).join(", "),
    );
  });

  test("summary: every faulted investigation ended concluded or needs_human with a reason; none lost, none stuck", async (t) => {
    const list = await executions();
    let ended = 0;
    const stuck: string[] = [];
    for (const { fault, id } of faulted) {
      const inv = await store.get(id);
      const run = list.filter((e) => e.argument.includes(id));
      const ok =
        inv !== undefined &&
        (inv.status === "concluded" || (inv.status === "needs_human" && Boolean(inv.reason))) &&
        run.length === 1 &&
        run.every((e) => e.state !== "ACTIVE");
      if (ok) ended += 1;
      else stuck.push(`${fault}: ${inv?.status ?? "lost"} (${run.map((e) => e.state).join(",")})`);
    }
    figure(
      t,
      "faults injected → investigations concluded or needs_human with a reason",
      `${faulted.length} → ${ended}`,
    );
    assert.deepEqual(stuck, []);
  });
});

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { PubSub } from "@google-cloud/pubsub";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import {
  FirestoreGovernorStore,
  GOVERNOR_COLLECTIONS,
} from "../../../functions/src/adapters/firestore/governor-store.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { pullMessages } from "../../../functions/src/adapters/pubsub/pull.js";
import { ingestDecision } from "../../../functions/src/app/ingest.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import { queueSortKey } from "../../../functions/src/domain/governor.js";
import {
  type Investigation,
  investigationIdFor,
  TERMINAL_STATUSES,
} from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { deadLetterSubscriptionName } from "../../../functions/src/local/pubsub-setup.js";
import { type LocalStack, startLocalStack } from "../../../functions/src/local/stack.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { TOPICS } from "../../../functions/src/platform/topics.js";
import { workflowFanout } from "../../../workflows/fanout.js";
import { uniqueProjectId } from "../../helpers/emulators.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import { waitFor } from "../../helpers/wait-for.js";
import { figure } from "../faults/support/figures.js";

/**
 * A storm on the whole local stack: findings shaped like the real corpus published to the
 * Pub/Sub emulator within two minutes, delivered to ingest under functions-framework, investigated
 * by the workflow on the offline model, under the governor. `npm test` runs STORM_FINDINGS
 * = 400 (the default here); the 2,000-finding storm is the same test with STORM_FINDINGS=2000
 * (docs/reliability.md gives the command and its figures). Not FERRET_*: the functions inherit
 * this process's environment, and their configuration refuses FERRET_ variables it does not know.
 *
 * The shape: each finding is one of the real SCC notifications under test/fixtures/real/scc (see
 * its PROVENANCE.md; those ingest would investigate), renamed and re-timed. An activity (one per
 * 20 findings) is a real notification given its own resource and one of a few principals, so
 * activities of a category share an account (one account touching many resources); each activity
 * is notified 20 times, as SCC re-notifies an ongoing finding with a new eventTime; one repeat in
 * 20 carries an address the others do not (a new indicator). Every function process logs each
 * Firestore write it commits (test/helpers/firestore-write-log.js), so the test counts writes per
 * document per second.
 *
 * Under instance caps, as Cloud Run enforces them (decision 0052): every function sits behind
 * the local stack's gate (a request past max_instances × concurrency waits up to 10 s, then gets
 * 429), and each function the workflow calls gets the tightest cap terraform/functions.tf's
 * precondition admits, the governor's concurrency × the workflow's fan-out to it; the pushed
 * functions keep Terraform's defaults. No investigation may fail for capacity.
 */
const STORM = Number(process.env.STORM_FINDINGS ?? 400);
const PER_ACTIVITY = 20;
const ACTIVITIES = Math.ceil(STORM / PER_ACTIVITY);
const PRINCIPALS = 5;
const MAX_CONCURRENT = Number(process.env.STORM_CONCURRENCY ?? 6);
/** Publishing is spread over this long, as a storm arrives (within the two minutes). */
const PUBLISH_SECONDS = Math.min(90, Math.max(10, Math.round(STORM / 25)));
const TOKEN = "xoxb-test-storm";
/** The least each workflow-called function may have (terraform/functions.tf's precondition). */
const TIGHTEST_CAPS = Object.fromEntries(
  Object.entries(workflowFanout(readFileSync(fromRoot("workflows/investigate.yaml"), "utf8"))).map(
    ([name, fanout]) => [name, { maxInstances: MAX_CONCURRENT * fanout }],
  ),
);
const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));

const config = loadConfig({ env: {} });
const BASES = readdirSync(fromRoot("test/fixtures/real/scc"))
  .filter((f) => f.endsWith(".json") && !f.endsWith(".expected.json"))
  .sort()
  .map((file) => JSON.parse(readFileSync(fromRoot(`test/fixtures/real/scc/${file}`), "utf8")) as JsonObject)
  .filter((n) => {
    // Only notifications (and exports) ingest takes and would investigate; a bare finding is not one.
    try {
      return (
        ingestDecision(normalizeNotification(parseNotification(n)), config.ingest).action === "investigate"
      );
    } catch {
      return false;
    }
  });

interface StormFinding {
  notification: JsonObject;
  id: string;
  activity: number;
  repeat: number;
  category: string;
}

/** Finding i: activity i mod ACTIVITIES, its repeat number, and one repeat in 20 with a new address. */
function stormFinding(i: number): StormFinding {
  const activity = i % ACTIVITIES;
  const repeat = Math.floor(i / ACTIVITIES);
  const base = BASES[activity % BASES.length] as JsonObject;
  const copy = structuredClone(base) as Record<string, JsonObject>;
  // Notifications carry `finding`; the SecOps samples are exports, with `findings`, or bare findings.
  const f = (copy.finding ?? copy.findings ?? copy) as JsonObject & { access?: JsonObject };
  const baseResource = String(
    f.resourceName ?? (copy.resource as JsonObject | undefined)?.name ?? "//unknown",
  );
  f.name = `${String(f.name)}-storm-${activity}`;
  // Ages not in publish order, so "then age" is tested rather than "then arrival".
  f.eventTime = new Date(
    Date.UTC(2026, 10, 25, 6, 0, 0) + repeat * 60_000 + ((activity * 37) % ACTIVITIES) * 1_000,
  ).toISOString();
  f.resourceName = `${baseResource}/storm-${activity}`;
  f.access = { ...(f.access ?? {}), principalEmail: `storm-${activity % PRINCIPALS}@example.com` };
  if (repeat === PER_ACTIVITY - 1) f.access.callerIp = `198.51.100.${activity % 250}`;
  const finding = normalizeNotification(parseNotification(copy));
  return {
    notification: copy,
    id: investigationIdFor(finding.name, finding.eventTime),
    activity,
    repeat,
    category: finding.category,
  };
}

interface Write {
  t: number;
  doc: string;
}

/** The most writes one document took in any window of `ms`, and which document. */
function busiest(writes: readonly Write[], ms: number): { doc: string; count: number } {
  const byDoc = new Map<string, number[]>();
  for (const w of writes) byDoc.set(w.doc, [...(byDoc.get(w.doc) ?? []), w.t]);
  let best = { doc: "", count: 0 };
  for (const [doc, times] of byDoc) {
    times.sort((a, b) => a - b);
    let lo = 0;
    for (let hi = 0; hi < times.length; hi++) {
      while ((times[hi] as number) - (times[lo] as number) >= ms) lo += 1;
      if (hi - lo + 1 > best.count) best = { doc, count: hi - lo + 1 };
    }
  }
  return best;
}

/** Collapses document ids so figures name the kind of document (investigations/{id}, …). */
function kindOf(doc: string): string {
  return doc.replace(/inv-[0-9a-f]{24}/g, "{id}").replace(/\/[0-9a-f]{64}$/, "/{key}");
}

describe(`a storm of ${STORM} findings under the governor`, { timeout: 3_600_000 }, () => {
  let stack: LocalStack;
  let db: Firestore;
  let store: FirestoreInvestigationStore;
  let governor: FirestoreGovernorStore;
  let bus: PubSubEventBus;
  let slack: SlackReceiver;
  const projectId = uniqueProjectId("storm");
  const workDir = mkdtempSync(join(tmpdir(), "ferret-storm-"));
  const writeLog = join(workDir, "firestore-writes.jsonl");

  before(async () => {
    slack = await startSlackReceiver({ token: TOKEN });
    stack = await startLocalStack({
      projectId,
      workDir,
      // No scheduled sweeps: the queue must drain on ingest's and the notifier's requests alone.
      sweepPeriodMs: 0,
      capacity: TIGHTEST_CAPS,
      env: {
        FERRET_MODEL_PROVIDER: "offline",
        FERRET_DUCKDB_DIR: scenario.logsDir as string,
        FERRET_STIX_BUNDLE: scenario.stixBundle as string,
        FERRET_GOVERNOR_MAX_CONCURRENT: String(MAX_CONCURRENT),
        FERRET_GOVERNOR_PER_HOUR: "100000",
        // Token limits are not this test's subject (budgets.test.ts and the unit tests hold them).
        FERRET_GOVERNOR_TOKENS_PER_HOUR: "0",
        FERRET_GOVERNOR_TOKENS_PER_DAY: "0",
        FERRET_GOVERNOR_GROUP_WINDOW_MINUTES: "30",
        FERRET_LOG_LEVEL: "WARNING",
        SLACK_BOT_TOKEN: TOKEN,
        FERRET_SLACK_CHANNEL: "C0FERRET",
        FERRET_SLACK_API_URL: slack.url,
        TEST_FIRESTORE_WRITE_LOG: writeLog,
        NODE_OPTIONS:
          `${process.env.NODE_OPTIONS ?? ""} --import ${fromRoot("test/helpers/firestore-write-log.js")}`.trim(),
      },
    });
    db = createFirestore({ projectId });
    store = new FirestoreInvestigationStore(db);
    governor = new FirestoreGovernorStore(db);
    bus = new PubSubEventBus(projectId);
  });

  after(async () => {
    await bus?.close();
    await stack?.stop();
    await slack?.close();
  });

  test("none lost, none dead-lettered, none investigated twice, the queue drained in order, no document written faster than about once a second", async (t) => {
    assert.ok(BASES.length >= 8, `real notifications ingest would investigate: ${BASES.length}`);
    const storm = Array.from({ length: STORM }, (_, i) => stormFinding(i));
    // A deterministic shuffle: repeats and activities arrive interleaved, not in order.
    const order = storm.map((s, i) => ({ s, k: (i * 7919) % STORM })).sort((a, b) => a.k - b.k);
    const started = Date.now();
    const perSecond = Math.ceil(STORM / PUBLISH_SECONDS);
    for (let at = 0; at < order.length; at += perSecond) {
      const tick = Date.now();
      await Promise.all(
        order.slice(at, at + perSecond).map(({ s }) => bus.publish(TOPICS.findings, s.notification)),
      );
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1_000 - (Date.now() - tick))));
    }
    const publishSeconds = Math.round((Date.now() - started) / 1000);

    // Every finding must become an investigation or a covered member, and every investigation finish.
    const settled = await waitFor(
      "every storm finding investigated or covered, every investigation finished, the queue empty",
      async () => {
        const [investigations, members, depth, state] = await Promise.all([
          db.collection("investigations").get(),
          db.collection(GOVERNOR_COLLECTIONS.members).get(),
          governor.queueDepth(),
          governor.state(),
        ]);
        const invs = investigations.docs.map((d) => d.data() as Investigation);
        const covered = members.docs.filter((d) => d.get("examination") === "covered").map((d) => d.id);
        const own = members.docs.filter((d) => d.get("examination") === "own").map((d) => d.id);
        const done = invs.every((i) => TERMINAL_STATUSES.includes(i.status));
        return invs.length + covered.length === STORM &&
          done &&
          depth === 0 &&
          Object.keys(state.running).length === 0
          ? { invs, covered, own }
          : undefined;
      },
      3_300_000,
      2_000,
    );
    const wallSeconds = Math.round((Date.now() - started) / 1000);

    // 0 lost: each storm finding is exactly one investigation or one covered member.
    const invIds = new Set(settled.invs.map((i) => i.id));
    const coveredIds = new Set(settled.covered);
    const lost = storm.filter((s) => !invIds.has(s.id) && !coveredIds.has(s.id));
    const both = storm.filter((s) => invIds.has(s.id) && coveredIds.has(s.id));
    assert.deepEqual(lost, [], "no finding lost");
    assert.deepEqual(both, [], "no finding both covered and investigated");
    // Each finding examined on its own has its investigation, linked to the group it met.
    for (const id of settled.own) {
      const inv = settled.invs.find((i) => i.id === id);
      assert.ok(inv?.groupLeadId, `${id} met a group, differed, and was investigated on its own`);
    }

    // 0 investigated twice: one `created` and at most one `planned` event, one execution each.
    let twice = 0;
    for (const inv of settled.invs) {
      const events = await store.listEvents(inv.id);
      if (
        events.filter((e) => e.type === "planned").length > 1 ||
        events.filter((e) => e.type === "created").length !== 1
      )
        twice += 1;
      assert.ok(inv.executionId, `${inv.id} got an execution`);
    }
    assert.equal(twice, 0, "no investigation planned twice");

    // 0 failed for capacity: no investigation ended on a refusal at an instance cap.
    const forCapacity = settled.invs.filter((i) => /\b429\b|instance cap/i.test(`${i.reason ?? ""}`));
    const failedAtAll = settled.invs.filter((i) => i.status === "failed");
    assert.deepEqual(
      forCapacity.map((i) => `${i.id}: ${i.status} (${i.reason})`),
      [],
      "no investigation failed for capacity",
    );
    const gates = stack.capacity();

    // 0 dead-lettered, on every topic.
    const pubsub = new PubSub({ projectId });
    const dead: string[] = [];
    for (const topic of Object.values(TOPICS)) {
      const letters = await pullMessages(pubsub, deadLetterSubscriptionName(topic), {
        maxMessages: 20,
        timeoutMs: 2_000,
      });
      dead.push(...letters.map((m) => `${topic}: ${m.attributes.reason ?? "(forwarded by Pub/Sub)"}`));
    }
    await pubsub.close();
    assert.deepEqual(dead, [], "nothing dead-lettered");

    // Concurrency: from admission to the terminal event, never more than the limit at once.
    const intervals: { start: number; end: number }[] = [];
    for (const inv of settled.invs) {
      assert.ok(inv.admittedAt, `${inv.id} was admitted`);
      const events = await store.listEvents(inv.id);
      const end = events.find((e) => TERMINAL_STATUSES.includes(e.type as Investigation["status"]));
      assert.ok(end, `${inv.id} has a terminal event`);
      intervals.push({ start: Date.parse(inv.admittedAt), end: Date.parse(end.at) });
    }
    const edges = intervals
      .flatMap((i) => [
        { at: i.start, d: 1 },
        { at: i.end, d: -1 },
      ])
      .sort((a, b) => a.at - b.at || a.d - b.d);
    let open = 0;
    let maxOpen = 0;
    for (const e of edges) {
      open += e.d;
      maxOpen = Math.max(maxOpen, open);
    }
    assert.ok(maxOpen <= MAX_CONCURRENT, `at most ${MAX_CONCURRENT} running at once, saw ${maxOpen}`);

    // Drain order: whenever a queued investigation started, none still waiting (queued a clear
    // 2 s before) came before it by severity, then age.
    const keyOf = (i: Investigation) => queueSortKey(i.finding.severity, i.finding.eventTime, i.id);
    const waited = await Promise.all(
      settled.invs.map(async (i) => ({
        inv: i,
        queuedAt: (await store.listEvents(i.id)).find((e) => e.type === "queued")?.at,
      })),
    );
    const drained = waited.filter((w) => w.queuedAt !== undefined);
    let inversions = 0;
    for (const a of drained)
      for (const b of drained) {
        if (a === b || (a.inv.admissionSeq ?? 0) >= (b.inv.admissionSeq ?? 0)) continue;
        const bWaiting = Date.parse(b.queuedAt as string) < Date.parse(a.inv.admittedAt as string) - 2_000;
        if (bWaiting && keyOf(b.inv) < keyOf(a.inv)) inversions += 1;
      }
    assert.equal(inversions, 0, "the queue drained by severity, then age");
    assert.ok(drained.length >= MAX_CONCURRENT, `the storm queued investigations (${drained.length})`);

    // Writes per document: the busiest document over any second and over any ten seconds.
    assert.ok(existsSync(writeLog), "the function processes logged their Firestore writes");
    const writes = readFileSync(writeLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Write);
    const second = busiest(writes, 1_000);
    const tenSeconds = busiest(writes, 10_000);
    const minute = busiest(writes, 60_000);
    const state = writes.filter((w) => w.doc === `${GOVERNOR_COLLECTIONS.governor}/state`);
    const stateTen = busiest(state, 10_000);

    const leads = settled.invs.filter((i) => (i.relatedCount ?? 0) > 0).length;
    figure(t, "storm findings published (over s)", `${STORM} (${publishSeconds})`);
    figure(
      t,
      "investigations started / covered by a lead / met a group but examined on their own",
      `${invIds.size} / ${coveredIds.size} / ${settled.own.length}`,
    );
    figure(t, "leads with grouped findings", leads);
    figure(
      t,
      "findings lost / dead-lettered / investigated twice",
      `${lost.length} / ${dead.length} / ${twice}`,
    );
    figure(t, "most investigations running at once (limit)", `${maxOpen} (${MAX_CONCURRENT})`);
    figure(t, "investigations failed / failed for capacity", `${failedAtAll.length} / ${forCapacity.length}`);
    for (const [name, g] of Object.entries(gates))
      if (g.stats.queued > 0 || name in TIGHTEST_CAPS)
        figure(
          t,
          `${name} gate: slots / peak in flight / queued / refused 429 / longest wait (ms)`,
          `${g.maxInstances * g.concurrency} / ${g.stats.peakInFlight} / ${g.stats.queued} / ${g.stats.refused} / ${g.stats.longestWaitMs}`,
        );
    figure(
      t,
      "investigations that waited in the queue / drain-order inversions",
      `${drained.length} / ${inversions}`,
    );
    figure(t, "Firestore writes logged", writes.length);
    figure(t, "busiest document in any 1 s", `${kindOf(second.doc)}: ${second.count}`);
    figure(
      t,
      "busiest document in any 10 s (writes/s)",
      `${kindOf(tenSeconds.doc)}: ${tenSeconds.count} (${(tenSeconds.count / 10).toFixed(1)}/s)`,
    );
    figure(
      t,
      "busiest document in any 60 s (writes/s sustained)",
      `${kindOf(minute.doc)}: ${minute.count} (${(minute.count / 60).toFixed(2)}/s)`,
    );
    figure(t, "governor/state writes, total and in any 10 s", `${state.length}, ${stateTen.count}`);
    figure(t, "wall time from the first publish to the last finish (s)", wallSeconds);
    // About once a second, sustained: no document takes more than 60 writes in any minute. An
    // investigation's own document bursts above that for a few seconds while a wave of its steps
    // finishes (each step's result and events); that does not grow with the storm, the figures
    // above show it, and docs/reliability.md says so.
    assert.ok(
      minute.count <= 60,
      `${minute.doc} took ${minute.count} writes within 60 s (more than about one a second, sustained)`,
    );
    // The governor's state document, the one every admission met before: at most one drain a second.
    assert.ok(stateTen.count <= 10, `governor/state took ${stateTen.count} writes within 10 s`);
  });
});

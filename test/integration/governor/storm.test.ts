import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Firestore } from "@google-cloud/firestore";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import {
  FirestoreGovernorStore,
  GOVERNOR_COLLECTIONS,
} from "../../../functions/src/adapters/firestore/governor-store.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding.js";
import { queueSortKey } from "../../../functions/src/domain/governor.js";
import {
  type Investigation,
  investigationIdFor,
  TERMINAL_STATUSES,
} from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { type LocalStack, startLocalStack } from "../../../functions/src/local/stack.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { TOPICS } from "../../../functions/src/platform/topics.js";
import { uniqueProjectId } from "../../helpers/emulators.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import { waitFor } from "../../helpers/wait-for.js";
import { figure } from "../faults/support/figures.js";

/**
 * A storm on the whole local stack: 200 findings published at once to the Pub/Sub emulator,
 * delivered to ingest under functions-framework, investigated by the workflow on the offline
 * model, with the governor at a concurrency of 3. Built from real SCC notifications
 * (test/fixtures/real/scc, see its PROVENANCE.md): each storm finding is one of them renamed,
 * re-timed and given a principal and a resource, so findings fall into groups
 * (category + principal, category + resource) of different severities.
 */
const MAX_CONCURRENT = 3;
const TOKEN = "xoxb-test-storm";
const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));
const BASES = [
  "secops-chokepoint-firewall.json", // CRITICAL
  "sra-sha-public-bucket-acl.json", // HIGH
  "sra-router-iam-anomalous-grant-remediated.json", // HIGH
  "sra-router-open-ssh-port-remediated.json", // HIGH
  "secops-misconfiguration-api-key-apis-unrestricted.json", // MEDIUM
  "sra-router-bucket-policy-only-disabled-remediated.json", // MEDIUM
  "secops-observation-project-ssh-key-added.json", // LOW
  "sra-router-audit-logging-disabled.json", // LOW
  "sra-etd-bad-ip.json", // no severity
].map((file) => JSON.parse(readFileSync(fromRoot(`test/fixtures/real/scc/${file}`), "utf8")) as JsonObject);
const GROUPS = 12;
const STORM = 200;

interface StormFinding {
  notification: JsonObject;
  id: string;
  group: number;
  category: string;
  principal: string;
  resource: string;
}

/** Finding i of the storm: group i mod 12, and every fifth one matching its group by one key only. */
function stormFinding(i: number): StormFinding {
  const group = i % GROUPS;
  const base = BASES[group % BASES.length] as JsonObject;
  const copy = structuredClone(base) as Record<string, JsonObject>;
  // Notifications carry `finding`; the SecOps samples are exports, with `findings`.
  const f = (copy.finding ?? copy.findings) as JsonObject & { access?: JsonObject };
  const baseResource = String(
    f.resourceName ?? (copy.resource as JsonObject | undefined)?.name ?? "//unknown",
  );
  let principal = `storm-${group}@example.com`;
  let resource = `${baseResource}/storm-${group}`;
  if (i % 5 === 3) resource = `${baseResource}/storm-other-${i}`; // joins by principal only
  if (i % 5 === 4) principal = `storm-other-${i}@example.com`; // joins by resource only
  f.name = `${String(f.name)}-storm-${i}`;
  // Ages not in publish order, so "then age" is tested rather than "then arrival".
  f.eventTime = new Date(Date.UTC(2026, 10, 25, 6, 0, 0) + ((i * 37) % STORM) * 60_000).toISOString();
  f.resourceName = resource;
  f.access = { ...(f.access ?? {}), principalEmail: principal };
  const finding = normalizeNotification(parseNotification(copy));
  return {
    notification: copy,
    id: investigationIdFor(finding.name, finding.eventTime),
    group,
    category: finding.category,
    principal,
    resource,
  };
}

describe("a storm of 200 findings under the governor", { timeout: 900_000 }, () => {
  let stack: LocalStack;
  let db: Firestore;
  let store: FirestoreInvestigationStore;
  let governor: FirestoreGovernorStore;
  let bus: PubSubEventBus;
  let slack: SlackReceiver;
  const projectId = uniqueProjectId("storm");

  before(async () => {
    slack = await startSlackReceiver({ token: TOKEN });
    stack = await startLocalStack({
      projectId,
      workDir: mkdtempSync(join(tmpdir(), "ferret-storm-")),
      // No scheduled sweeps: the queue must drain on the notifier's finished requests alone.
      sweepPeriodMs: 0,
      env: {
        FERRET_MODEL_PROVIDER: "offline",
        FERRET_DUCKDB_DIR: scenario.logsDir as string,
        FERRET_STIX_BUNDLE: scenario.stixBundle as string,
        FERRET_GOVERNOR_MAX_CONCURRENT: String(MAX_CONCURRENT),
        FERRET_GOVERNOR_PER_HOUR: "1000",
        FERRET_GOVERNOR_GROUP_WINDOW_MINUTES: "30",
        SLACK_BOT_TOKEN: TOKEN,
        FERRET_SLACK_CHANNEL: "C0FERRET",
        FERRET_SLACK_API_URL: slack.url,
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

  test("at most the configured concurrency, none lost, groups counted, the queue drained by severity then age", async (t) => {
    const storm = Array.from({ length: STORM }, (_, i) => stormFinding(i));
    const started = Date.now();
    await Promise.all(storm.map((s) => bus.publish(TOPICS.findings, s.notification)));

    // Every finding must become an investigation or a member of one, and every investigation finish.
    const settled = await waitFor(
      "every storm finding investigated or grouped, every investigation finished, the queue empty",
      async () => {
        const [investigations, members, depth, state] = await Promise.all([
          db.collection("investigations").get(),
          db.collection(GOVERNOR_COLLECTIONS.members).get(),
          governor.queueDepth(),
          governor.state(),
        ]);
        const invs = investigations.docs.map((d) => d.data() as Investigation);
        const done = invs.every((i) => TERMINAL_STATUSES.includes(i.status));
        const accounted = invs.length + members.size;
        return accounted === STORM && done && depth === 0 && Object.keys(state.running).length === 0
          ? { invs, memberIds: members.docs.map((d) => d.id) }
          : undefined;
      },
      600_000,
      1_000,
    );
    const wallSeconds = Math.round((Date.now() - started) / 1000);

    // 0 lost: each storm finding is exactly one investigation or one grouped member.
    const invIds = new Set(settled.invs.map((i) => i.id));
    const memberIds = new Set(settled.memberIds);
    const lost = storm.filter((s) => !invIds.has(s.id) && !memberIds.has(s.id));
    const both = storm.filter((s) => invIds.has(s.id) && memberIds.has(s.id));
    figure(t, "storm findings published", STORM);
    figure(t, "investigations started / findings grouped into them", `${invIds.size} / ${memberIds.size}`);
    figure(t, "findings lost", lost.length);
    figure(t, "wall time from publish to the last finish (s)", wallSeconds);
    assert.deepEqual(lost, [], "no finding lost");
    assert.deepEqual(both, [], "no finding both investigated and grouped");
    assert.equal(invIds.size + memberIds.size, STORM);

    // Grouping: each member sits under a lead of its category sharing its principal or resource,
    // and each lead's count is exactly its members.
    const byId = new Map(storm.map((s) => [s.id, s]));
    let grouped = 0;
    for (const inv of settled.invs) {
      const related = await governor.listRelated(inv.id, 500);
      assert.equal(inv.relatedCount ?? 0, related.length, `${inv.id}: count on the investigation`);
      assert.equal(await governor.relatedCount(inv.id), related.length, `${inv.id}: count in the governor`);
      const lead = byId.get(inv.id);
      assert.ok(lead, `${inv.id} is a storm finding`);
      for (const r of related) {
        const member = byId.get(r.findingId);
        assert.ok(member, `${r.findingId} is a storm finding`);
        assert.equal(member.category, lead.category, "same category");
        assert.ok(
          (r.matchedOn === "principal" && member.principal === lead.principal) ||
            (r.matchedOn === "resource" && member.resource === lead.resource),
          `${r.findingId} shares its ${r.matchedOn} with ${inv.id}`,
        );
        grouped += 1;
      }
    }
    assert.equal(grouped, memberIds.size);
    for (let g = 0; g < GROUPS; g++) {
      const inGroup = storm.filter((s) => s.group === g);
      assert.ok(
        inGroup.some((s) => invIds.has(s.id)),
        `group ${g} has an investigation`,
      );
    }

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
    figure(t, "most investigations running at once (limit)", `${maxOpen} (${MAX_CONCURRENT})`);
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
    figure(t, "investigations that waited in the queue", drained.length);
    figure(t, "drain-order inversions (severity, then age)", inversions);
    assert.equal(inversions, 0, "the queue drained by severity, then age");
    assert.ok(drained.length >= 3, `the storm queued investigations (${drained.length})`);

    // Slack: each lead with related findings shows the count on its thread root.
    const withRelated = settled.invs.filter((i) => (i.relatedCount ?? 0) > 0);
    for (const inv of withRelated) {
      const shown = await waitFor(`the root of ${inv.id} to show its count`, async () => {
        const root = slack
          .posts()
          .find((p) => p.args.thread_ts === undefined && JSON.stringify(p.args).includes(inv.id));
        if (!root) return undefined;
        const last = slack
          .updates()
          .filter((u) => u.args.ts === root.answer.ts)
          .at(-1);
        const text = JSON.stringify((last ?? root).args);
        return text.includes(`+ ${inv.relatedCount} related finding`) ? true : undefined;
      });
      assert.equal(shown, true);
    }
    const queuedNotes = slack
      .posts()
      .filter((p) => JSON.stringify(p.args).includes("Queued by the storm governor"));
    figure(t, "leads whose Slack root shows '+ N related findings'", withRelated.length);
    assert.equal(queuedNotes.length, drained.length, "one Slack note per queued finding");
  });
});

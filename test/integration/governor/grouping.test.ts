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
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
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
 * Issue 27's decoy-then-real case on the local stack (ingest under functions-framework, the
 * workflow on the offline model, grouping with the 30-minute window Terraform deploys), over the
 * iam-anomalous-grant scenario's logs: a decoy "Persistence: IAM Anomalous Grant" (an account
 * grants roles/viewer to an outside auditor), then within the window the real one from the
 * scenario (ci-deployer makes a gmail account owner, from another IP). Before: the real finding
 * joined the decoy's investigation by the project, was never investigated, and the decoy's
 * thread said "+ 1 related finding". The decoys are the scenario's notification with its grant,
 * principal and address changed (only the envelope of a real-shaped notification, see
 * examples/scenarios/iam-anomalous-grant).
 */
const TOKEN = "xoxb-test-grouping";
const scenario = loadScenario(fromRoot("examples/scenarios/iam-anomalous-grant"));
const REAL = JSON.parse(
  readFileSync(fromRoot("examples/scenarios/iam-anomalous-grant/notification.json"), "utf8"),
) as JsonObject;

interface Variant {
  suffix: string;
  minutes: number;
  principal?: string;
  grant?: { role: string; member: string };
  callerIp?: string;
}

/** The real notification, renamed and re-timed, optionally with another grant, principal and address. */
function variant(v: Variant): { notification: JsonObject; id: string; name: string } {
  const copy = structuredClone(REAL) as { finding: Record<string, unknown> };
  const f = copy.finding as Record<string, unknown> & {
    access: Record<string, unknown>;
    sourceProperties: { properties: { sensitiveRoleGrant: Record<string, unknown> } };
  };
  if (v.suffix) f.name = `${String(f.name)}${v.suffix}`;
  f.eventTime = new Date(Date.parse(String(f.eventTime)) + v.minutes * 60_000).toISOString();
  if (v.principal) {
    f.access.principalEmail = v.principal;
    f.sourceProperties.properties.sensitiveRoleGrant.principalEmail = v.principal;
    delete f.access.serviceAccountKeyName;
  }
  if (v.callerIp) f.access.callerIp = v.callerIp;
  if (v.grant) {
    const binding = { action: "ADD", role: v.grant.role, member: v.grant.member };
    f.iamBindings = [binding];
    f.sourceProperties.properties.sensitiveRoleGrant.bindingDeltas = [binding];
    f.sourceProperties.properties.sensitiveRoleGrant.members = [v.grant.member.replace(/^user:/, "")];
    f.access.userAgent = "Terraform/1.9.5 terraform-provider-google/6.8.0";
  }
  const finding = normalizeNotification(parseNotification(copy));
  return {
    notification: copy as unknown as JsonObject,
    id: investigationIdFor(finding.name, finding.eventTime),
    name: finding.name,
  };
}

const AUDITOR = { role: "roles/viewer", member: "user:auditor@partner-audit.example" };

describe("grouping never hides a finding (issue 27)", { timeout: 600_000 }, () => {
  let stack: LocalStack;
  let db: Firestore;
  let store: FirestoreInvestigationStore;
  let governor: FirestoreGovernorStore;
  let bus: PubSubEventBus;
  let slack: SlackReceiver;
  const projectId = uniqueProjectId("grouping");

  before(async () => {
    slack = await startSlackReceiver({ token: TOKEN });
    stack = await startLocalStack({
      projectId,
      workDir: mkdtempSync(join(tmpdir(), "ferret-grouping-")),
      sweepPeriodMs: 0,
      env: {
        FERRET_MODEL_PROVIDER: "offline",
        FERRET_DUCKDB_DIR: scenario.logsDir as string,
        ...(scenario.stixBundle ? { FERRET_STIX_BUNDLE: scenario.stixBundle } : {}),
        FERRET_GOVERNOR_MAX_CONCURRENT: "3",
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

  const finished = (ids: string[]) =>
    waitFor(
      `investigations ${ids.join(", ")} finished and their slots freed`,
      async () => {
        const invs = await Promise.all(ids.map((id) => store.get(id)));
        const state = await governor.state();
        return invs.every((i) => i && TERMINAL_STATUSES.includes(i.status)) &&
          Object.keys(state.running).length === 0
          ? (invs as Investigation[])
          : undefined;
      },
      240_000,
      1_000,
    );

  test("a decoy by another account, then the real grant in the same project: the real one is investigated", async (t) => {
    const decoy = variant({
      suffix: "-decoy",
      minutes: -3,
      principal: "ci-bot@acme-web-prod.iam.gserviceaccount.com",
      callerIp: "35.192.77.14",
      grant: AUDITOR,
    });
    const real = variant({ suffix: "", minutes: 0 });
    await bus.publish(TOPICS.findings, decoy.notification);
    await waitFor("the decoy's investigation", () => store.get(decoy.id), 60_000, 250);
    await bus.publish(TOPICS.findings, real.notification);
    // Before: the real finding had no investigation (it joined the decoy's by the project).
    const realInv = await waitFor(
      "the real finding's own investigation",
      () => store.get(real.id),
      60_000,
      500,
    );
    const [decoyDone, realDone] = await finished([decoy.id, real.id]);
    figure(t, "decoy verdict", `${decoyDone?.conclusion?.verdict} ${decoyDone?.conclusion?.confidence}`);
    figure(t, "real verdict", `${realDone?.conclusion?.verdict} ${realDone?.conclusion?.confidence}`);
    assert.ok(realInv);
    assert.equal(realDone?.conclusion?.verdict, "true_positive");
    assert.ok(
      realDone?.conclusion?.iocs.some((i) => i.value === "dev.contractor.ops@gmail.com"),
      "the real grantee is among the real investigation's IOCs",
    );
    assert.equal(await governor.relatedCount(decoy.id), 0, "the project is not a grouping key");
  });

  test("same account: the real grant meets the decoy's group, is examined on its own, and the decoy's card says so", async (t) => {
    const decoy = variant({
      suffix: "-decoy-same-account",
      minutes: 1,
      callerIp: "35.192.77.14",
      grant: AUDITOR,
    });
    const again = variant({
      suffix: "-decoy-same-account-again",
      minutes: 2,
      callerIp: "35.192.77.14",
      grant: AUDITOR,
    });
    const real = variant({ suffix: "-again", minutes: 3 });
    await bus.publish(TOPICS.findings, decoy.notification);
    await waitFor("the decoy's investigation", () => store.get(decoy.id), 60_000, 250);
    await bus.publish(TOPICS.findings, real.notification);
    await bus.publish(TOPICS.findings, again.notification);
    const realInv = await waitFor(
      "the real finding's own investigation",
      () => store.get(real.id),
      60_000,
      500,
    );
    assert.equal(realInv.groupLeadId, decoy.id, "linked to the decoy's group");
    const [, realDone] = await finished([decoy.id, real.id]);
    assert.equal(realDone?.conclusion?.verdict, "true_positive");

    const members = await governor.listRelated(decoy.id, 10);
    const byId = new Map(members.map((m) => [m.findingId, m]));
    assert.equal(byId.get(real.id)?.examination, "own");
    assert.match(
      byId.get(real.id)?.reason ?? "",
      /finding\.iamBindings\[0\]\.role is "roles\/owner", not the lead's/,
    );
    assert.equal(
      byId.get(again.id)?.examination,
      "covered",
      "the same activity again is covered by the lead",
    );
    assert.equal(await store.get(again.id), undefined, "…and not investigated twice");
    const member = await db.collection(GOVERNOR_COLLECTIONS.members).doc(again.id).get();
    assert.equal(member.get("leadId"), decoy.id);

    // The decoy's thread root, as Slack holds it last, lists both with how each was examined.
    const card = await waitFor(
      "the decoy's card listing the real grant's own outcome",
      async () => {
        const root = slack
          .posts()
          .find((p) => p.args.thread_ts === undefined && JSON.stringify(p.args).includes(decoy.id));
        if (!root) return undefined;
        const last = slack
          .updates()
          .filter((u) => u.args.ts === root.answer.ts)
          .at(-1);
        const text = JSON.stringify((last ?? root).args);
        return /examined in its own investigation[^*]*outcome: \*true_positive/.test(text) ? text : undefined;
      },
      120_000,
      1_000,
    );
    assert.match(
      card,
      /decoy-same-account-again.*covered by this investigation because it reports the same activity/,
    );
    assert.match(card, new RegExp(`examined in its own investigation \`${real.id}\``));
    figure(
      t,
      "members of the decoy's group (own / covered)",
      `${members.filter((m) => m.examination === "own").length} / ${members.filter((m) => m.examination === "covered").length}`,
    );
  });
});

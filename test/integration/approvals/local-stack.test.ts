import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import { investigationIdFor, TERMINAL_STATUSES } from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { localPrincipal } from "../../../functions/src/local/identities.js";
import {
  type ResponseActionsStandIn,
  startResponseActionsStandIn,
} from "../../../functions/src/local/response-actions-stand-in.js";
import { type LocalStack, startLocalStack } from "../../../functions/src/local/stack.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { TOPICS } from "../../../functions/src/platform/topics.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import { blockActionsBody, sendSigned } from "../../helpers/slack-signer.js";
import { waitFor } from "../../helpers/wait-for.js";
import { findApprovalPost } from "./support.js";

/**
 * The approval pause on the real local stack, nothing in process: the cryptomining finding is
 * published to the Pub/Sub emulator, ingest starts an execution on the local executions
 * service (workflows/investigate.yaml on the runner, in its own process, with the runner's
 * callback server), the offline planner ends the plan with the built-in add_deny_egress_tag
 * action (enabled here), the step executor holds it, the workflow pauses on
 * events.await_callback and the notifier posts the request to the Slack stand-in. A signed
 * Approve click goes through slackEvents → analyst-actions → the analystActions worker, which
 * calls back as itself; the workflow resumes and the responder runs the call once against the
 * Compute stand-in. The matrix (deny, timeout, injection, double clicks) is the in-process
 * test's (approval-flow.test.ts); this one proves the stack is wired.
 */
const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));
const TOKEN = "xoxb-approvals-stack";
const SECRET = "approvals-stack-signing-secret-0123456789";
const APPROVER = { id: "U0APPROVER", username: "appr" };
const TAG = "ferret-deny-egress";
const INSTANCE = {
  project: "acme-analytics-prod",
  zone: "us-central1-a",
  name: "analytics-etl-3",
  id: "8792155509029289",
  tags: ["etl"],
};

describe("the approval pause on the local stack", { timeout: 300_000 }, () => {
  const projectId = uniqueProjectId("approvals-stack");
  let stack: LocalStack;
  let store: FirestoreInvestigationStore;
  let bus: PubSubEventBus;
  let slack: SlackReceiver;
  let compute: ResponseActionsStandIn;
  let startedMs = 0;

  before(async () => {
    await ensureEmulators();
    slack = await startSlackReceiver({ token: TOKEN });
    compute = await startResponseActionsStandIn({ instances: [INSTANCE] });
    const t0 = Date.now();
    stack = await startLocalStack({
      projectId,
      workDir: mkdtempSync(join(tmpdir(), "ferret-approvals-stack-")),
      env: {
        FERRET_MODEL_PROVIDER: "offline",
        FERRET_DUCKDB_DIR: scenario.logsDir as string,
        FERRET_STIX_BUNDLE: scenario.stixBundle as string,
        SLACK_BOT_TOKEN: TOKEN,
        FERRET_SLACK_CHANNEL: "C0FERRET",
        FERRET_SLACK_API_URL: slack.url,
        SLACK_SIGNING_SECRET: SECRET,
        FERRET_SLACK_ALLOWED_USERS: APPROVER.id,
        FERRET_SLACK_APPROVERS: APPROVER.id,
        FERRET_ACTIONS_ENABLED: "add_deny_egress_tag",
        FERRET_ACTIONS_DENY_EGRESS_TAG: TAG,
        FERRET_GOOGLEAPIS_ROOT_URL: compute.rootUrl,
        FERRET_LOG_LEVEL: "WARNING",
      },
      sweepPeriodMs: 0,
    });
    startedMs = Date.now() - t0;
    store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    bus = new PubSubEventBus(projectId);
  });

  after(async () => {
    await bus?.close();
    await stack?.stop();
    await compute?.close();
    await slack?.close();
  });

  const setTagsCalls = () => compute.calls.filter((c) => c.method === "POST" && c.path.endsWith("/setTags"));

  test("Approve: the execution pauses, only the worker's callback wakes it, the call runs once and the conclusion says who approved it", async (t) => {
    const finding = normalizeNotification(parseNotification(scenario.notification));
    const id = investigationIdFor(finding.name, finding.eventTime);
    const published = Date.now();
    await bus.publish(TOPICS.findings, scenario.notification as JsonObject);

    const message = await waitFor("the approval request in Slack", async () => {
      const inv = await store.get(id);
      if (inv && TERMINAL_STATUSES.includes(inv.status))
        throw new Error(`the investigation ended (${inv.status}: ${inv.reason}) without asking for approval`);
      return findApprovalPost(slack.posts(), id);
    });
    const requested = Date.now();
    assert.match(message.text, /add_deny_egress_tag/);
    assert.match(message.text, /8792155509029289/);
    assert.equal(setTagsCalls().length, 0, "nothing was written before the approval");

    // The execution is paused on its callback: only the worker's identity may wake it.
    const [record] = (await store.require(id)).approvals ?? [];
    assert.ok(record, "the responder recorded the request");
    assert.equal(record.status, "pending");
    const callBack = (authorization?: string) =>
      fetch(record.callbackUrl, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ approvalId: record.approvalId }),
      });
    assert.equal((await callBack()).status, 401, "no identity");
    assert.equal(
      (await callBack(`Bearer ${stack.identities.tokens.responder}`)).status,
      403,
      "the responder",
    );
    assert.equal((await callBack("Bearer not-a-local-identity")).status, 401, "an unknown token");
    assert.deepEqual(stack.identities.callbacks.allowed, [localPrincipal("analystActions")]);
    await sleep(300);
    assert.equal((await store.require(id)).status, "running", "still paused");

    const clicked = await sendSigned(
      stack.functionUrls.slackEvents as string,
      blockActionsBody(APPROVER, "ferret_approve", message.value),
      { secret: SECRET },
    );
    assert.equal(clicked.status, 200);
    const clickedAt = Date.now();
    const ran = await waitFor("the approved call against the Compute stand-in", async () =>
      setTagsCalls().length > 0 ? Date.now() : undefined,
    );
    const done = await waitFor("the conclusion", async () => {
      const inv = await store.get(id);
      return inv && TERMINAL_STATUSES.includes(inv.status) ? inv : undefined;
    });

    assert.equal(done.status, "concluded", done.reason);
    assert.equal(setTagsCalls().length, 1, "the approved call ran exactly once");
    assert.equal(setTagsCalls()[0]?.status, 200);
    assert.deepEqual(compute.instance(INSTANCE.project, INSTANCE.zone, INSTANCE.id)?.tags, ["etl", TAG]);
    const approvals = done.conclusion?.approvals ?? [];
    assert.equal(approvals.length, 1);
    assert.equal(approvals[0]?.tool, "add_deny_egress_tag");
    assert.equal(approvals[0]?.outcome, "ran");
    assert.equal(approvals[0]?.decidedBy?.id, APPROVER.id);
    assert.equal(approvals[0]?.argsDigest, record.request.argsDigest);
    const executions = (await (await fetch(`${stack.executionsUrl}/v1/executions`)).json()) as {
      executions: { argument: string; state: string }[];
    };
    const mine = executions.executions.filter((e) => e.argument.includes(id));
    assert.equal(mine.length, 1, "one execution, paused and resumed");
    const ended = await waitFor("the execution to end", async () => {
      const list = (await (await fetch(`${stack.executionsUrl}/v1/executions`)).json()) as typeof executions;
      const e = list.executions.find((x) => x.argument.includes(id));
      return e && e.state !== "ACTIVE" ? e : undefined;
    });
    assert.equal(ended.state, "SUCCEEDED");

    // Seconds from publishing: the investigation's events as the functions recorded them, the rest by this test's clock.
    const events = await store.listEvents(id);
    const at = (type: string) => {
      const event = events.find((e) => e.type === type);
      return event ? `${((Date.parse(event.at) - published) / 1000).toFixed(1)} s` : "never";
    };
    const since = (ms: number) => `${((ms - published) / 1000).toFixed(1)} s`;
    t.diagnostic(
      `figures: stack up in ${(startedMs / 1000).toFixed(1)} s; from publishing: approval requested ${at("approval_requested")}, ` +
        `message in Slack ${since(requested)}, Approve clicked ${since(clickedAt)}, decided by the worker ${at("approval_decided")}, ` +
        `action ran (workflow resumed, settle) ${at("action_ran")}, seen at the stand-in ${since(ran)}, concluded ${at("concluded")}; ` +
        `setTags calls ${setTagsCalls().length}; refused callbacks 401, 403, 401`,
    );
  });
});

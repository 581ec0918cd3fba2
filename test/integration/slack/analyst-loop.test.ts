import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import type { GenerateRequest, Model } from "../../../functions/src/model/port.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { type SccStandIn, startSccStandIn } from "../../helpers/scc-stand-in.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import { blockActionsBody, disputeSubmissionBody, sendSigned } from "../../helpers/slack-signer.js";

/**
 * The analyst's loop end to end, on the emulators and under functions-framework: a finding is
 * investigated to a verdict, the thread root becomes the verdict card (chat.update on the Slack
 * stand-in), an analyst disputes it through signed interaction requests, the worker records
 * the decision, writes security marks through the official SCC client to a gRPC stand-in, and
 * the planner of a later finding of the same category receives the lesson, fenced as data.
 */
const projectId = uniqueProjectId("analyst");
const scenarioDir = join(process.cwd(), "examples/scenarios/cryptomining");
const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const ANALYST = { id: "U0ANALYST", username: "ana" };
const GROUPIE = { id: "U0GROUPIE", username: "gro" };
const STRANGER = { id: "U0STRANGER", username: "eve" };

type Modules = {
  testing: typeof import("@google-cloud/functions-framework/testing");
  ff: typeof import("@google-cloud/functions-framework");
  service: typeof import("../../../workflows/local-executions/service.js");
  store: typeof import("../../../functions/src/adapters/firestore/investigation-store.js");
  client: typeof import("../../../functions/src/adapters/firestore/client.js");
  finding: typeof import("../../../functions/src/domain/finding/finding.js");
  investigation: typeof import("../../../functions/src/domain/investigation.js");
  compose: typeof import("../../../functions/src/entry/compose.js");
  roles: typeof import("../../../functions/src/roles/index.js");
  handlers: typeof import("../../../functions/src/entry/role-handler.js");
  scc: typeof import("../../../functions/src/adapters/scc/scc-findings.js");
  runtime: typeof import("../../../functions/src/entry/runtime.js");
  operations: typeof import("../../../functions/src/app/planner.js");
  plain: typeof import("../../../functions/src/adapters/slack/render-plain.js");
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe("the analyst's loop in Slack", { timeout: 240_000 }, () => {
  let m: Modules;
  let slack: SlackReceiver;
  let scc: SccStandIn;
  const servers: Server[] = [];
  const urls: Record<string, string> = {};
  let executions: InstanceType<Modules["service"]["LocalExecutionsService"]>;
  let store: InstanceType<Modules["store"]["FirestoreInvestigationStore"]>;
  let id: string;
  let rootTs: string;
  const rendered: string[] = [];

  const threadText = (label: string): string => {
    const { root, replies } = slack.thread(rootTs);
    const lines = [
      `── ${label} ──`,
      "ROOT:",
      ...m.plain.blocksToPlain(root.blocks as JsonObject[]).map((l) => `  ${l}`),
    ];
    lines.push(`(${replies.length} replies in the thread)`);
    const last = replies.at(-1);
    if (last)
      lines.push("LAST REPLY:", ...m.plain.blocksToPlain(last.blocks as JsonObject[]).map((l) => `  ${l}`));
    return lines.join("\n");
  };

  before(async () => {
    await ensureEmulators();
    slack = await startSlackReceiver({ token: "xoxb-test" });
    slack.setGroup("S0SOC", [GROUPIE.id]);
    scc = await startSccStandIn();
    Object.assign(process.env, {
      GOOGLE_CLOUD_PROJECT: projectId,
      METADATA_SERVER_DETECTION: "none",
      FERRET_MODEL_PROVIDER: "offline",
      FERRET_DUCKDB_DIR: join(scenarioDir, "logs"),
      FERRET_STIX_BUNDLE: join(scenarioDir, "intel/bundle.json"),
      SLACK_BOT_TOKEN: "xoxb-test",
      FERRET_SLACK_CHANNEL: "C0FERRET",
      FERRET_SLACK_API_URL: slack.url,
      SLACK_SIGNING_SECRET: SECRET,
      FERRET_SLACK_ALLOWED_USERS: ANALYST.id,
      FERRET_SLACK_ALLOWED_USER_GROUPS: "S0SOC",
      FERRET_SCC_WRITEBACK: "true",
      FERRET_SCC_ANALYST_MUTE_AND_STATE: "true",
      FERRET_LOG_LEVEL: "ERROR",
    });
    m = {
      testing: await import("@google-cloud/functions-framework/testing"),
      ff: await import("@google-cloud/functions-framework"),
      service: await import("../../../workflows/local-executions/service.js"),
      store: await import("../../../functions/src/adapters/firestore/investigation-store.js"),
      client: await import("../../../functions/src/adapters/firestore/client.js"),
      finding: await import("../../../functions/src/domain/finding/finding.js"),
      investigation: await import("../../../functions/src/domain/investigation.js"),
      compose: await import("../../../functions/src/entry/compose.js"),
      roles: await import("../../../functions/src/roles/index.js"),
      handlers: await import("../../../functions/src/entry/role-handler.js"),
      scc: await import("../../../functions/src/adapters/scc/scc-findings.js"),
      runtime: await import("../../../functions/src/entry/runtime.js"),
      operations: await import("../../../functions/src/app/planner.js"),
      plain: await import("../../../functions/src/adapters/slack/render-plain.js"),
    };
    await import("../../../functions/src/index.js");
    // The deployed worker, with its SCC client pointed at the local stand-in instead of Google.
    m.ff.cloudEvent(
      "analystActionsUnderTest",
      m.handlers.eventHandler(m.roles.roleNamed("analystActions"), async () => ({
        ...(await m.compose.getRuntime()),
        scc: new m.scc.SecurityCenterFindings(scc.clientOptions),
      })),
    );
    for (const name of [
      "planner",
      "stepExecutor",
      "reflector",
      "concluder",
      "compressor",
      "ingest",
      "sweep",
      "notifier",
      "slackEvents",
      "analystActionsUnderTest",
    ]) {
      const server = m.testing.getTestServer(name);
      servers.push(server);
      urls[name] = await listen(server);
    }
    executions = new m.service.LocalExecutionsService({
      yamlPath: join(process.cwd(), "workflows/investigate.yaml"),
      env: {
        FERRET_PLANNER_URL: urls.planner as string,
        FERRET_STEP_EXECUTOR_URL: urls.stepExecutor as string,
        FERRET_REFLECTOR_URL: urls.reflector as string,
        FERRET_CONCLUDER_URL: urls.concluder as string,
        FERRET_COMPRESSOR_URL: urls.compressor as string,
      },
    });
    const executionsServer = await executions.listen(0);
    process.env.FERRET_WORKFLOWS_URL = `http://127.0.0.1:${(executionsServer.address() as AddressInfo).port}`;
    const { ensureTopology } = await import("../../../functions/src/local/pubsub-setup.js");
    await ensureTopology(projectId, {
      pushEndpoints: {
        "investigation-events": `${urls.notifier}/projects/${projectId}/topics/investigation-events`,
        "analyst-actions": `${urls.analystActionsUnderTest}/projects/${projectId}/topics/analyst-actions`,
        // Ingest queues the finding and asks the sweep's drainer to launch it (decision 0039).
        "sweep-requests": `${urls.sweep}/projects/${projectId}/topics/sweep-requests`,
      },
      maxDeliveryAttempts: 5,
    });
    store = new m.store.FirestoreInvestigationStore(m.client.createFirestore({ projectId }));

    const notification = JSON.parse(readFileSync(join(scenarioDir, "notification.json"), "utf8"));
    const finding = m.finding.normalizeNotification(m.finding.parseNotification(notification));
    id = m.investigation.investigationIdFor(finding.name, finding.eventTime);
    const data = Buffer.from(JSON.stringify(notification)).toString("base64");
    const pushed = await fetch(`${urls.ingest}/projects/${projectId}/topics/scc-findings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        message: { data, messageId: "m-1" },
        subscription: "projects/p/subscriptions/s",
      }),
    });
    assert.ok(pushed.ok, `ingest answered ${pushed.status}`);
    await waitFor("the sweep's drainer to start the execution", async () =>
      executions.list().length > 0 ? true : undefined,
    );
    await executions.idle();
  });

  after(async () => {
    const outDir = join(process.cwd(), ".ferret");
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, "analyst-loop-thread.txt"), `${rendered.join("\n\n")}\n`);
    await executions?.close();
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    await slack?.close();
    await scc?.close();
  });

  const post = (body: string, options: Partial<Parameters<typeof sendSigned>[2]> = {}) =>
    sendSigned(urls.slackEvents as string, body, { secret: SECRET, ...options });

  test("the thread root becomes the verdict card with the buttons", async () => {
    const inv = await store.require(id);
    assert.equal(inv.status, "concluded");
    assert.equal(inv.conclusion?.verdict, "true_positive");
    const update = await waitFor("the root's chat.update", () => slack.updates().at(-1));
    rootTs = String(update.args.ts);
    const root = slack.posts().find((p) => p.answer.ts === rootTs);
    assert.ok(root && root.args.thread_ts === undefined, "the update edits the thread root");
    const blocks = update.args.blocks as JsonObject[];
    assert.match(String(((blocks[0]?.text ?? {}) as JsonObject).text), /True positive/);
    const actions = blocks.find((b) => b.type === "actions");
    const ids = ((actions?.elements as JsonObject[]) ?? []).map((e) => e.action_id);
    assert.deepEqual(ids, [
      "ferret_confirm",
      "ferret_dispute",
      "ferret_scc_mute",
      "ferret_scc_inactive",
      "ferret_reinvestigate",
    ]);
    for (const e of (actions?.elements ?? []) as JsonObject[]) assert.equal(e.value, id);
    rendered.push(threadText("before the click"));
  });

  test("a bad signature, a replay and an unsigned request are refused with 401", async () => {
    const body = blockActionsBody(ANALYST, "ferret_confirm", id);
    assert.equal((await post(body, { secret: "not-the-secret" })).status, 401);
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    assert.equal((await post(body, { timestamp: tenMinutesAgo })).status, 401, "replayed old request");
    const ahead = Math.floor(Date.now() / 1000) + 600;
    assert.equal((await post(body, { timestamp: ahead })).status, 401, "pre-dated request");
    const res = await fetch(urls.slackEvents as string, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    assert.equal(res.status, 401);
    // A body changed after signing (the click moved to another button) fails too.
    const ts = Math.floor(Date.now() / 1000);
    const { slackSignature } = await import("../../helpers/slack-signer.js");
    const signedForConfirm = slackSignature(SECRET, ts, body);
    const tampered = blockActionsBody(ANALYST, "ferret_scc_inactive", id);
    assert.equal((await post(tampered, { timestamp: ts, signature: signedForConfirm })).status, 401);
  });

  test("malformed payloads get 400, the URL check gets its challenge", async () => {
    assert.equal((await post("payload=%7Bnot-json")).status, 400);
    assert.equal((await post("nothing=here")).status, 400);
    assert.equal((await post(blockActionsBody(ANALYST, "ferret_confirm", "inv-../../etc"))).status, 400);
    assert.equal((await post(blockActionsBody(ANALYST, "someone_elses_button", id))).status, 400);
    assert.equal((await post("{", { contentType: "application/json" })).status, 400);
    const check = await post(
      JSON.stringify({
        type: "url_verification",
        challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
        token: "x",
      }),
      {
        contentType: "application/json",
      },
    );
    assert.equal(check.status, 200);
    assert.equal(JSON.parse(check.body).challenge, "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P");
  });

  test("a user who is not allowed changes nothing", async () => {
    const clicked = await post(blockActionsBody(STRANGER, "ferret_scc_mute", id));
    assert.equal(clicked.status, 200, "Slack gets its acknowledgement");
    const submitted = await post(disputeSubmissionBody(STRANGER, id, "benign", "I say so"));
    assert.equal(submitted.status, 200);
    assert.equal(JSON.parse(submitted.body).response_action, "errors");
    await sleep(1_500);
    assert.equal((await store.require(id)).analystDecisions, undefined);
    assert.equal(scc.calls.length, 0);
    assert.equal(slack.viewsOpened().length, 0);
  });

  test("Dispute opens the modal; a submission without a reason is sent back", async () => {
    const clicked = await post(blockActionsBody(ANALYST, "ferret_dispute", id));
    assert.equal(clicked.status, 200);
    const opened = slack.viewsOpened().at(-1);
    assert.ok(opened, "views.open was called");
    const view = opened.args.view as JsonObject;
    assert.equal(view.private_metadata, id);
    assert.equal(view.callback_id, "ferret_dispute_modal");
    const blank = await post(disputeSubmissionBody(ANALYST, id, "benign", "  "));
    assert.equal(blank.status, 200);
    assert.deepEqual(Object.keys(JSON.parse(blank.body).errors), ["reason"]);
  });

  test("a dispute is recorded next to ferret's verdict, written to SCC, shown on the card, once", async () => {
    const reason = "Sanctioned load test by the SRE team, ticket OPS-1234.";
    const body = disputeSubmissionBody(ANALYST, id, "benign", reason);
    const first = await post(body);
    assert.equal(first.status, 200);
    assert.equal(first.body, "", "an empty 200 closes the modal");
    assert.equal((await post(body)).status, 200, "submitted twice");
    const inv = await waitFor("the decision", async () => {
      const current = await store.require(id);
      return current.analystDecisions?.length ? current : undefined;
    });
    assert.equal(inv.conclusion?.verdict, "true_positive", "ferret's verdict is untouched");
    const marks = await waitFor("the security marks", () =>
      scc.calls.find(
        (c) => c.method === "UpdateSecurityMarks" && JSON.stringify(c.request).includes("analyst_verdict"),
      ),
    );
    const request = marks.request as {
      securityMarks: { name: string; marks: Record<string, string> };
      updateMask: { paths: string[] };
    };
    assert.equal(request.securityMarks.name, `${inv.finding.name}/securityMarks`);
    assert.equal(request.securityMarks.marks.ferret_verdict, "true_positive");
    assert.equal(request.securityMarks.marks.analyst_verdict, "benign");
    assert.equal(request.securityMarks.marks.analyst_decision, "disputed");
    assert.ok(request.updateMask.paths.includes("marks.analyst_verdict"));
    assert.ok(!JSON.stringify(request).includes("OPS-1234"), "the free-text reason is not written to SCC");
    await waitFor("the reply", () =>
      slack.thread(rootTs).replies.find((r) => String(r.text).includes("disputed")) ? true : undefined,
    );
    await sleep(1_500); // let the duplicate delivery land, if it were to do anything
    const after = await store.require(id);
    assert.equal(after.analystDecisions?.length, 1, "the double submission is one decision");
    const disputeReplies = slack.thread(rootTs).replies.filter((r) => String(r.text).includes("disputed"));
    assert.equal(disputeReplies.length, 1, "one reply for one dispute");
    const card = m.plain.blocksToPlain(slack.thread(rootTs).root.blocks as JsonObject[]).join("\n");
    assert.match(card, /Disputed by <@U0ANALYST>: 🟢 Benign — “Sanctioned load test/);
    rendered.push(threadText("after the dispute"));
  });

  test("double clicks on Confirm are one confirmation; a group member may confirm", async () => {
    const body = blockActionsBody(GROUPIE, "ferret_confirm", id);
    const [a, b] = await Promise.all([post(body), post(body)]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    await waitFor("the confirmation", async () =>
      (await store.require(id)).analystDecisions?.some((d) => d.kind === "confirm") ? true : undefined,
    );
    await sleep(1_500);
    const decisions = (await store.require(id)).analystDecisions ?? [];
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.by.id]),
      [
        ["dispute", ANALYST.id],
        ["confirm", GROUPIE.id],
      ],
    );
    assert.equal(slack.thread(rootTs).replies.filter((r) => String(r.text).includes("confirmed")).length, 1);
  });

  test("the planner of a later finding of the same category receives the lesson, fenced as data", async () => {
    const first = await store.require(id);
    const {
      plan: _p,
      conclusion: _c,
      analystDecisions: _a,
      reason: _r,
      executionId: _e,
      launchClaimedAt: _l,
      ...base
    } = first;
    const laterName = first.finding.name.replace(/findings\/[^/]+$/, "findings/later0000000000000000000001");
    const laterId = m.investigation.investigationIdFor(laterName, first.finding.eventTime);
    await store.create(
      {
        ...base,
        id: laterId,
        status: "queued",
        eventSeq: 0,
        finding: {
          ...first.finding,
          name: laterName,
          resource: {
            ...first.finding.resource,
            name: "//compute.googleapis.com/projects/other/zones/z/instances/9",
          },
        },
      },
      [],
    );
    const rt = await m.compose.getRuntime();
    const requests: GenerateRequest[] = [];
    const recording: Model = {
      name: rt.offlineModel.name,
      offline: true,
      generate: (request) => {
        requests.push(request);
        return rt.offlineModel.generate(request);
      },
      embed: (request) => rt.offlineModel.embed(request),
    };
    const deps = { ...m.runtime.appDepsFor(rt, undefined), model: recording };
    await m.operations.runPlanner(laterId, deps);
    const planner = requests.find((r) => r.brief.role === "planner");
    assert.ok(planner, "the planner was asked");
    const prompt = planner.messages.map((msg) => ("text" in msg ? String(msg.text) : "")).join("\n");
    const fenceStart = prompt.indexOf('<<<UNTRUSTED_DATA kind="analyst_lessons">>>');
    assert.ok(fenceStart >= 0, "the lessons are fenced as data");
    const fenceEnd = prompt.indexOf("<<<END_UNTRUSTED_DATA>>>", fenceStart);
    const fenced = prompt.slice(fenceStart, fenceEnd);
    assert.ok(fenced.includes("Sanctioned load test by the SRE team"), "the reason is inside the fence");
    assert.ok(fenced.includes("benign") && fenced.includes("true_positive"));
    assert.ok(!prompt.slice(0, fenceStart).includes("Sanctioned"), "and nowhere outside it");
  });
});

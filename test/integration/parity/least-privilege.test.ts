/**
 * Least privilege derived from what the functions do, not from a list.
 *
 * Every function runs under functions-framework with exactly the environment Terraform gives
 * it (terraform-env.ts), for a deployment with the analyst's loop, SCC write-back and the
 * deny-egress response action on, in a region other than the code's default. Each function
 * reaches every Google endpoint through recording proxies of its own (call-recorder.ts), so
 * every call is attributed to the service account that function runs as; the workflow's calls
 * to the functions and Pub/Sub's push deliveries are recorded the same way, as the workflow's
 * and the push identity's. The endpoints are stand-ins: the Firestore and Pub/Sub emulators,
 * the local Workflows executions service with its callback server, the SCC gRPC stand-in, the
 * IAM/Compute/Resource Manager stand-in, a Slack Web API stand-in, and the Gemini stand-in.
 * Vertex AI cannot be reached without Google credentials, so each function gets the Developer
 * API transport to the Gemini stand-in in place of Terraform's Vertex settings
 * (GOOGLE_GENAI_USE_VERTEXAI=false, a key, a base URL); a call there stands for the Vertex
 * method Terraform's settings select, which needs aiplatform.endpoints.predict on the model.
 *
 * One investigation runs through the deployed workflow with a scripted Gemini: a plan with a
 * read step and an acting step (add_deny_egress_tag), held for approval, approved in Slack, run
 * by the responder; then an analyst confirms, asks a question in the thread and clicks
 * Re-investigate. From the calls seen, each is mapped to the permissions Google documents for
 * its method and looked for among the grants Terraform gives that identity
 * (derived-permissions.ts). The test fails on a call no grant allows, on a call to a resource
 * Terraform does not deploy, on a function that calls the model without Terraform's model
 * settings, and on a grant no call needs unless it is explained below.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { SCHEDULED_SWEEP } from "../../../functions/src/app/sweep-request.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import { investigationIdFor, TERMINAL_STATUSES } from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { freePort } from "../../../functions/src/local/free-port.js";
import { type ManagedProcess, startProcess, waitForHttp } from "../../../functions/src/local/processes.js";
import { ensureTopology } from "../../../functions/src/local/pubsub-setup.js";
import {
  type ResponseActionsStandIn,
  startResponseActionsStandIn,
} from "../../../functions/src/local/response-actions-stand-in.js";
import { type SccStandIn, startSccStandIn } from "../../../functions/src/local/scc-stand-in.js";
import { fromRoot, repoRoot } from "../../../functions/src/platform/paths.js";
import { TOPICS } from "../../../functions/src/platform/topics.js";
import { ROLES } from "../../../functions/src/roles/index.js";
import { LocalExecutionsService } from "../../../workflows/local-executions/service.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import {
  FakeGemini,
  type FakeReply,
  type GeminiContent,
  type GeminiRequest,
  geminiAnswer,
} from "../../helpers/fake-gemini.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import { blockActionsBody, sendSigned } from "../../helpers/slack-signer.js";
import { waitFor } from "../../helpers/wait-for.js";
import { functionUrlEnvVar, local, obj, strings } from "../../unit/terraform/hcl.js";
import { findApprovalPost } from "../approvals/support.js";
import {
  type ObservedCall,
  type RecordingProxy,
  startGrpcRecorder,
  startHttpRecorder,
} from "./call-recorder.js";
import { analyse, type HeldGrant, terraformGrants } from "./derived-permissions.js";
import { type Deployment, deploymentFor, environmentOf } from "./variants.js";

const SECRETS = JSON.parse(
  readFileSync(fromRoot("test/integration/parity/fixtures/secrets.json"), "utf8"),
) as Record<string, string>;
const NOTIFICATION = JSON.parse(
  readFileSync(fromRoot("examples/scenarios/cryptomining/notification.json"), "utf8"),
) as JsonObject & { finding: { name: string } };
const ORGANIZATION = /^organizations\/(\d+)\//.exec(NOTIFICATION.finding.name)?.[1] as string;
const INSTANCE = {
  project: "acme-analytics-prod",
  zone: "us-central1-a",
  name: "etl-worker-1",
  id: "8792155509029289",
  tags: ["etl"],
};
const APPROVER = { id: "U0APPROVER", username: "appr" };
const ANALYST = { id: "U0ANALYST", username: "ana" };
const BOT = "U0FERRETBOT";

/** The deployment under test: docs/deploy.md's variables with the analyst's loop and one action on. */
const OVERRIDES = {
  region: "europe-west1",
  organization_id: ORGANIZATION,
  response_actions: ["add_deny_egress_tag"],
  deny_egress_networks: [{ project: INSTANCE.project, network: "default" }],
  slack_approvers: [APPROVER.id],
  slack_allowed_users: [ANALYST.id, APPROVER.id],
  enable_scc_writeback: true,
  scc_analyst_mute_and_state: true,
};

/**
 * Grants the run cannot show a call for, each with why it is held. Mounted secrets, the
 * workflow's call logs and the build account's grants are needed by Google's platform, not by a
 * call a function makes; the rest are methods no emulator-backed test reaches (gaps).
 */
const EXPLAINED_UNUSED: Readonly<Record<string, string>> = {
  "stepExecutor roles/bigquery.jobUser on project":
    "gap: log queries run as BigQuery jobs; no BigQuery stand-in answers without Google credentials",
  "stepExecutor roles/bigquery.dataViewer on log_dataset": "gap: BigQuery log tables, as above",
  "stepExecutor roles/pubsub.publisher on topic agent-sessions":
    "gap: sessions are published by the log-analysis sub-agent, which needs BigQuery",
  "memoryIntrospector roles/datastore.user on project": "gap: fed by agent-sessions, as above",
  "memoryIntrospector roles/aiplatform.user on project": "gap: fed by agent-sessions, as above",
  "memoryIntrospector roles/pubsub.publisher on dead_letter_topic agent-sessions":
    "gap: only a message it can never process",
  "compressor roles/datastore.user on project":
    "gap: compression runs under context pressure only (test/integration/e2e/compression.test.ts)",
  "compressor roles/aiplatform.user on project": "gap: as above",
  "compressor roles/pubsub.publisher on topic investigation-events": "gap: as above",
  "workflow roles/run.invoker on function compressor": "gap: as above",
  "ingest roles/pubsub.publisher on dead_letter_topic scc-findings":
    "gap: only a message it can never process",
  "notifier roles/pubsub.publisher on dead_letter_topic investigation-events":
    "gap: only a message it can never process",
  "sweep roles/pubsub.publisher on dead_letter_topic sweep-requests":
    "gap: only a message it can never process",
  "sweep roles/workflows.invoker on project":
    "gap: only when the governor's queue releases a finding (test/integration/governor/storm.test.ts)",
  "sweep roles/pubsub.publisher on topic investigation-events":
    "gap: only when an investigation stalled past its deadline (test/integration/sweep/sweep.test.ts)",
  "pubsubPush roles/run.invoker on function memoryIntrospector": "gap: fed by agent-sessions, as above",
  "analystActions roles/pubsub.publisher on dead_letter_topic analyst-actions":
    "gap: only a message it can never process",
  "workflow roles/logging.logWriter on project": "platform: the workflow's call logs (call_log_level)",
  // Every function exports its spans and metrics (FERRET_TELEMETRY_EXPORTER=google-cloud,
  // docs/decisions/0055). The exporters take Google credentials before any call, and no stand-in
  // answers the Telemetry API or Cloud Monitoring, so here each export fails before the wire.
  ...Object.fromEntries(
    ROLES.flatMap((role) => [
      [
        `${role.name} roles/telemetry.tracesWriter on project`,
        "gap: spans go over OTLP to the Telemetry API (telemetry.traces.write), which needs Google credentials; no stand-in answers it",
      ],
      [
        `${role.name} roles/monitoring.metricWriter on project`,
        "gap: metrics go to Cloud Monitoring (metricDescriptors.create, timeSeries.create), as above",
      ],
    ]),
  ),
};

/** The workflow Terraform deploys, as the Executions API names it. */
function terraformWorkflow(deployment: Deployment): string {
  const name = String(local(deployment.tf, "workflow_name"));
  return `projects/${String(deployment.vars.project_id)}/locations/${String(deployment.vars.region)}/workflows/${name}`;
}

/** Grants of the platform: Cloud Run mounts each secret as the function's account; Cloud Build builds as `build`. */
function platformNeeds(held: HeldGrant, deployment: Deployment): boolean {
  if (held.identity === "build") return true;
  const secret = /^roles\/secretmanager\.secretAccessor on secret (\S+)$/.exec(held.label)?.[1];
  if (!secret) return false;
  return Object.values(deployment.functions.get(held.identity)?.secrets ?? {}).includes(secret);
}

// Gemini as each ferret role would answer (the shapes the roles' schemas take).
const PLAN = {
  objective: "Did etl-worker-1 run a cryptominer, and should it be isolated?",
  successCriteria: ["earlier findings on the instance are known", "the instance is isolated if it mined"],
  constraints: [],
  steps: [
    {
      id: "history",
      description: "Look for earlier findings on instance etl-worker-1.",
      tools: ["related_findings"],
      expected: "earlier findings or none",
      dependsOn: [],
    },
    {
      id: "contain",
      description: "Isolate instance 8792155509029289 with the deny-egress tag.",
      tools: ["add_deny_egress_tag"],
      expected: "the instance carries the tag",
      // A second wave, so the reflector reflects between the waves.
      dependsOn: ["history"],
    },
  ],
};
const REPORT = {
  outcome: "answered",
  summary: "etl-worker-1 reached the mining pool 203.0.113.88.",
  facts: ["etl-worker-1 connected to 203.0.113.88"],
  iocs: [{ type: "ip", value: "203.0.113.88", context: "mining pool" }],
};
const CONCLUSION = {
  verdict: "true_positive",
  confidence: 0.9,
  severity: "HIGH",
  summary: "etl-worker-1 mined cryptocurrency for the pool at 203.0.113.88.",
  mitre: [{ tactic: "Impact", techniqueId: "T1496", techniqueName: "Resource Hijacking" }],
  keyFindings: [
    {
      finding: "The instance reached the pool",
      evidence: [{ stepId: "history", source: "related_findings", detail: "203.0.113.88" }],
    },
  ],
  iocs: REPORT.iocs,
  recommendedActions: [{ action: "Rotate etl-worker-1's service account keys", priority: "immediate" }],
  openQuestions: [],
};

const json = (value: unknown): FakeReply =>
  geminiAnswer([{ text: JSON.stringify(value) }], {
    usageMetadata: { promptTokenCount: 900, candidatesTokenCount: 60, totalTokenCount: 960 },
  });
const allText = (contents: GeminiContent[]) =>
  contents.flatMap((c) => c.parts.map((p) => p.text ?? "")).join("\n");
const answered = (contents: GeminiContent[]) =>
  contents.flatMap((c) => c.parts).some((p) => p.functionResponse !== undefined);

function gemini(state: { planned: number; reflected: number }) {
  return (call: GeminiRequest): FakeReply => {
    switch (call.role) {
      case "planner":
        state.planned += 1;
        // The re-investigation reads only: one approval is what this test clicks.
        return json(state.planned === 1 ? PLAN : { ...PLAN, steps: PLAN.steps.slice(0, 1) });
      case "executor":
        if (allText(call.contents).includes("step `contain`") && !answered(call.contents))
          return geminiAnswer([
            {
              functionCall: {
                name: "add_deny_egress_tag",
                args: { project: INSTANCE.project, zone: INSTANCE.zone, instance: INSTANCE.id },
              },
            },
          ]);
        return json(REPORT);
      case "reflector":
        state.reflected += 1;
        // After the first wave the instance is not isolated yet: go on to the acting step.
        return json({
          achieved: state.reflected > 1,
          insights: ["the pool is known"],
          updates: [],
          rationale: state.reflected > 1 ? "settled" : "the instance still reaches the pool",
        });
      case "concluder":
        return json(CONCLUSION);
      default:
        // The thread answer.
        return json({ answer: "It reached 203.0.113.88 only.", citations: ["conclusion"] });
    }
  };
}

describe("every Google API call a function makes is allowed by what Terraform grants its identity", {
  timeout: 600_000,
}, () => {
  const projectId = uniqueProjectId("least-privilege");
  const calls: ObservedCall[] = [];
  const record = (call: ObservedCall) => calls.push(call);
  const processes: ManagedProcess[] = [];
  const proxies: RecordingProxy[] = [];
  const logDir = mkdtempSync(join(tmpdir(), "ferret-least-privilege-"));
  let deployment: Deployment;
  let executions: LocalExecutionsService;
  let slack: SlackReceiver;
  let scc: SccStandIn;
  let googleApis: ResponseActionsStandIn;
  let fake: FakeGemini;
  let bus: PubSubEventBus;
  let store: FirestoreInvestigationStore;
  const urls: Record<string, string> = {};
  const tokens = new Map<string, string>();

  before(async () => {
    const emulators = await ensureEmulators();
    deployment = await deploymentFor({ name: "least privilege", overrides: OVERRIDES }, projectId);
    const vars = deployment.vars;
    const workflowResource = terraformWorkflow(deployment);
    slack = await startSlackReceiver({ token: SECRETS["slack-bot-token"] as string });
    scc = await startSccStandIn();
    googleApis = await startResponseActionsStandIn({ instances: [INSTANCE] });
    fake = await FakeGemini.start({ respond: gemini({ planned: 0, reflected: 0 }), embeddings: true });

    const entries = ROLES.filter((e) => deployment.functions.has(e.name));
    // Every recorder binds a port of its own first; the functions' ports are picked after them,
    // so no recorder takes a port a function server is about to listen on.
    const urlOf = (name: string) => () => urls[name] as string;
    for (const e of entries) tokens.set(`local-${e.name}-${Math.random().toString(36).slice(2)}`, e.name);
    const tokenOf = (name: string) => [...tokens].find(([, n]) => n === name)?.[0] as string;

    // The workflow calls each function as `workflow`; callbacks come from whoever sends them.
    const workflowEnv: Record<string, string> = { ...deployment.workflowEnv };
    for (const e of entries)
      if (e.trigger === "http" && e.calledBy === "workflow") {
        const proxy = await startHttpRecorder({
          upstream: urlOf(e.name),
          identity: "workflow",
          api: "run.googleapis.com",
          record,
          resourceOf: () => `function:${e.name}`,
        });
        proxies.push(proxy);
        workflowEnv[functionUrlEnvVar(e.name)] = proxy.address;
      }
    executions = new LocalExecutionsService({
      yamlPath: fromRoot("workflows/investigate.yaml"),
      env: workflowEnv,
      callbacks: {
        identify(authorization) {
          const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
          const identity = token ? tokens.get(token) : undefined;
          if (identity)
            record({
              identity,
              api: "workflowexecutions.googleapis.com",
              method: "POST /callbacks/*",
              resource: workflowResource,
              variants: [],
            });
          return identity;
        },
        // Who may call back is the grants' question, answered below from Terraform.
        allowed: entries.map((e) => e.name),
      },
    });
    const executionsPort = ((await executions.listen(0)).address() as AddressInfo).port;

    const sccOptions = scc.clientOptions as { apiEndpoint: string; port: number };
    const sccAddress = `${sccOptions.apiEndpoint}:${sccOptions.port}`;
    const vertexModel = (path: string) =>
      `projects/${projectId}/locations/${String(vars.vertex_location)}/publishers/google/models/${
        /\/models\/([^/:]+)/.exec(path)?.[1] ?? "?"
      }`;
    const ffIndex = createRequire(import.meta.url).resolve("@google-cloud/functions-framework");
    // Push deliveries carry the push identity's token; each goes through a recorder of its own.
    const pushEndpoints: Record<string, string> = {};
    for (const e of entries) {
      if (e.trigger !== "pubsub") continue;
      const proxy = await startHttpRecorder({
        upstream: urlOf(e.name),
        identity: "pubsubPush",
        api: "run.googleapis.com",
        record,
        resourceOf: () => `function:${e.name}`,
      });
      proxies.push(proxy);
      pushEndpoints[e.topic] = `${proxy.address}/projects/${projectId}/topics/${e.topic}`;
    }
    const launches: (() => void)[] = [];
    for (const [i, entry] of entries.entries()) {
      const name = entry.name;
      const fn = deployment.functions.get(name);
      assert.ok(fn);
      const grpc = (upstream: string, api: string) =>
        startGrpcRecorder({ upstream, identity: name, api, record });
      const http = (upstream: string, api: string, resourceOf?: (path: string) => string) =>
        startHttpRecorder({ upstream, identity: name, api, record, ...(resourceOf ? { resourceOf } : {}) });
      const mine = await Promise.all([
        grpc(emulators.firestoreHost, "firestore.googleapis.com"),
        grpc(emulators.pubsubHost, "pubsub.googleapis.com"),
        grpc(sccAddress, "securitycenter.googleapis.com"),
        http(`http://127.0.0.1:${executionsPort}`, "workflowexecutions.googleapis.com", (path) =>
          path.replace(/^\/v1\//, "").replace(/\/executions$/, ""),
        ),
        http(fake.url, "aiplatform.googleapis.com", vertexModel),
      ]);
      // One stand-in serves IAM, Compute and Resource Manager; the path tells which API.
      const apisProxy = await startHttpRecorder({
        upstream: googleApis.rootUrl,
        identity: name,
        api: "compute.googleapis.com",
        record: (call) =>
          record({
            ...call,
            api: call.method.includes(" /compute/")
              ? "compute.googleapis.com"
              : call.method.includes(" /v3/")
                ? "cloudresourcemanager.googleapis.com"
                : "iam.googleapis.com",
          }),
        resourceOf: (path) =>
          path
            .replace(/^\/(compute\/)?v\d+\//, "")
            .replace(/[:/](setTags|disable|getIamPolicy|setIamPolicy)$/, ""),
      });
      proxies.push(...mine, apisProxy);
      const [firestore, pubsub, sccProxy, workflows, model] = mine as [
        RecordingProxy,
        RecordingProxy,
        RecordingProxy,
        RecordingProxy,
        RecordingProxy,
      ];
      const standIns: Record<string, string> = {
        FIRESTORE_EMULATOR_HOST: firestore.address,
        PUBSUB_EMULATOR_HOST: pubsub.address,
        FERRET_SCC_API_ENDPOINT: sccProxy.address,
        FERRET_WORKFLOWS_URL: workflows.address,
        FERRET_GOOGLEAPIS_ROOT_URL: apisProxy.address,
        FERRET_SLACK_API_URL: slack.url,
        // Vertex needs Google credentials; the Developer API to the stand-in carries the same calls.
        GOOGLE_GENAI_USE_VERTEXAI: "false",
        GEMINI_API_KEY: "least-privilege-stand-in-key",
        GOOGLE_GEMINI_BASE_URL: model.address,
        FERRET_LOCAL_IDENTITY_TOKEN: tokenOf(name),
        METADATA_SERVER_DETECTION: "none",
        FERRET_LOG_LEVEL: "WARNING",
        ...(process.env.PATH ? { PATH: process.env.PATH } : {}),
        ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
      };
      launches.push(() =>
        processes.push(
          startProcess(
            name,
            process.execPath,
            [
              "--import",
              "tsx",
              join(dirname(ffIndex), "main.js"),
              `--target=${name}`,
              `--signature-type=${entry.trigger === "http" ? "http" : "cloudevent"}`,
              `--port=${ports[i]}`,
              `--source=${fromRoot("functions/src/index.ts")}`,
            ],
            { env: { ...environmentOf(fn), ...standIns }, logDir, cwd: repoRoot() },
          ),
        ),
      );
    }
    // A port the kernel called free may still be one a recorder here listens on (seen once: a
    // function's readiness probes reached the sweep's Workflows recorder as two `GET /`), so a
    // function's port is picked again until it is no recorder's and no other function's.
    const taken = new Set(proxies.map((p) => Number(/:(\d+)$/.exec(p.address)?.[1])));
    const ports: number[] = [];
    for (const _ of entries) {
      let port = await freePort();
      while (taken.has(port)) port = await freePort();
      taken.add(port);
      ports.push(port);
    }
    entries.forEach((e, i) => {
      urls[e.name] = `http://127.0.0.1:${ports[i]}`;
    });
    for (const launch of launches) launch();
    await Promise.all(processes.map((p) => waitForHttp(urls[p.name] as string, p, 300_000)));

    process.env.FIRESTORE_EMULATOR_HOST = emulators.firestoreHost;
    process.env.PUBSUB_EMULATOR_HOST = emulators.pubsubHost;
    await ensureTopology(projectId, { pushEndpoints, maxDeliveryAttempts: 5 });
    store = new FirestoreInvestigationStore(
      createFirestore({
        projectId,
        databaseId: deployment.functions.get("ingest")?.env.FERRET_FIRESTORE_DATABASE,
      }),
    );
    bus = new PubSubEventBus(projectId);
  });

  after(async () => {
    await bus?.close();
    await Promise.allSettled(processes.map((p) => p.stop()));
    await Promise.allSettled(proxies.map((p) => p.close()));
    await executions?.close();
    await Promise.allSettled([slack?.close(), scc?.close(), googleApis?.close(), fake?.stop()]);
  });

  test("an investigation, an approval, a confirmation, a question and a re-investigation, observed call by call", async (t) => {
    const finding = normalizeNotification(parseNotification(NOTIFICATION));
    const id = investigationIdFor(finding.name, finding.eventTime);
    const secret = SECRETS["slack-signing-secret"] as string;
    const slackEvents = (body: string, contentType?: string) =>
      sendSigned(urls.slackEvents as string, body, { secret, ...(contentType ? { contentType } : {}) });
    await bus.publish(TOPICS.findings, NOTIFICATION);

    const approval = await waitFor(
      "the approval request in Slack",
      async () => {
        const inv = await store.get(id);
        if (inv && TERMINAL_STATUSES.includes(inv.status))
          throw new Error(
            `the investigation ended (${inv.status}: ${inv.reason}) without asking for approval`,
          );
        return findApprovalPost(slack.posts(), id);
      },
      300_000,
      1_000,
    );
    assert.equal(
      (await slackEvents(blockActionsBody(APPROVER, "ferret_approve", approval.value))).status,
      200,
    );
    const done = await waitFor(
      "the investigation to end",
      async () => {
        const inv = await store.get(id);
        return inv && TERMINAL_STATUSES.includes(inv.status) ? inv : undefined;
      },
      300_000,
      1_000,
    );
    assert.equal(done.status, "concluded", done.reason);
    assert.ok(
      googleApis.calls.some((c) => c.path.endsWith("/setTags")),
      "the approved action ran against the Compute stand-in",
    );

    const seen = (identity: string, api: string) => async () =>
      calls.some((c) => c.identity === identity && c.api === api) ? true : undefined;
    assert.equal((await slackEvents(blockActionsBody(ANALYST, "ferret_confirm", id))).status, 200);
    await waitFor(
      "the worker's SCC write-back",
      seen("analystActions", "securitycenter.googleapis.com"),
      60_000,
    );

    // Dispute opens a modal showing ferret's verdict, read by the public endpoint itself.
    assert.equal((await slackEvents(blockActionsBody(ANALYST, "ferret_dispute", id))).status, 200);
    await waitFor(
      "the Dispute modal",
      async () => (slack.viewsOpened().length > 0 ? true : undefined),
      30_000,
    );
    // Cloud Scheduler's request to the sweep function (terraform/scheduler.tf).
    await bus.publish(TOPICS.sweep, SCHEDULED_SWEEP);
    await waitFor("a sweep", seen("sweep", "firestore.googleapis.com"), 60_000);

    const root = slack
      .posts()
      .find((p) => p.args.thread_ts === undefined && JSON.stringify(p.args).includes(id));
    assert.ok(root, "the investigation's thread root");
    const mention = JSON.stringify({
      token: "ZZZZZZWSxiZZZ2yIvs3peJ",
      team_id: "T0001",
      api_app_id: "A0001",
      event: {
        type: "app_mention",
        user: ANALYST.id,
        text: `<@${BOT}> did it reach anything besides the pool?`,
        ts: `${Math.floor(Date.now() / 1000)}.000200`,
        channel: String(root.args.channel),
        thread_ts: String(root.answer.ts),
        event_ts: `${Math.floor(Date.now() / 1000)}.000200`,
      },
      type: "event_callback",
      event_id: "Ev0LEASTPRIV01",
      event_time: Math.floor(Date.now() / 1000),
    });
    assert.equal((await slackEvents(mention, "application/json")).status, 200);
    await waitFor(
      "the answer in the thread",
      async () =>
        slack.posts().some((p) => p.args.thread_ts === root.answer.ts && /answer/i.test(String(p.args.text)))
          ? true
          : undefined,
      90_000,
    );

    assert.equal((await slackEvents(blockActionsBody(ANALYST, "ferret_reinvestigate", id))).status, 200);
    await waitFor(
      "the re-investigation's execution",
      seen("analystActions", "workflowexecutions.googleapis.com"),
      90_000,
    );
    // Let calls in flight land before reading the record.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    // The record, for a look at what each function did (kept with the functions' logs).
    writeFileSync(join(logDir, "observed-calls.json"), JSON.stringify(calls, null, 2));
    t.diagnostic(`observed calls: ${join(logDir, "observed-calls.json")}`);
    const held = terraformGrants(deployment.tf, deployment.vars);
    const result = analyse(calls, held);
    const unused = result.unused.filter((g) => !platformNeeds(g, deployment));
    t.diagnostic(`observed: ${calls.length} calls, ${result.pairs.length} (identity, API method) pairs`);
    for (const pair of result.pairs) t.diagnostic(`  ${pair}`);
    t.diagnostic(`documented methods no call exercised (gaps): ${result.unexercised.length}`);
    for (const gap of result.unexercised) t.diagnostic(`  gap: ${gap}`);
    for (const g of unused)
      t.diagnostic(
        `  unused: ${g.identity} ${g.label}: ${EXPLAINED_UNUSED[`${g.identity} ${g.label}`] ?? "?"}`,
      );

    assert.deepEqual(
      result.unknown.map((c) => `${c.identity} ${c.api} ${c.method}`),
      [],
      "calls whose method the permission table (test/fixtures/real/iam-permissions) does not know",
    );
    assert.deepEqual(
      result.missing.map((n) => `${n.identity} needs ${n.permission} on ${n.resource} (${n.method})`),
      [],
      "calls no grant of the caller's service account allows",
    );
    assert.deepEqual(
      unused.map((g) => `${g.identity} ${g.label}`).filter((g) => !(g in EXPLAINED_UNUSED)),
      [],
      "grants no observed call needs",
    );
  });

  test("every call names a resource Terraform deploys, and every model caller has Terraform's model settings", () => {
    const db = deployment.functions.get("ingest")?.env.FERRET_FIRESTORE_DATABASE;
    const wrong: string[] = [];
    for (const c of calls) {
      if (
        c.api === "firestore.googleapis.com" &&
        !c.resource.startsWith(`projects/${projectId}/databases/${db}`)
      )
        wrong.push(`${c.identity} ${c.method} on ${c.resource}: Terraform's database is ${db}`);
      if (c.api === "workflowexecutions.googleapis.com" && c.method.startsWith("POST /v1/")) {
        const expected = terraformWorkflow(deployment);
        if (c.resource !== expected)
          wrong.push(`${c.identity} starts ${c.resource}: Terraform deploys ${expected}`);
      }
    }
    assert.deepEqual([...new Set(wrong)], [], "calls to resources Terraform does not deploy");

    const modelEnv = Object.keys(obj(obj(local(deployment.tf, "env_groups"), "env_groups").model, "model"));
    const callers = [
      ...new Set(calls.filter((c) => c.api === "aiplatform.googleapis.com").map((c) => c.identity)),
    ];
    assert.ok(callers.length > 0, "the model was called");
    const unset = callers.flatMap((name) => {
      const env = deployment.functions.get(name)?.env ?? {};
      return modelEnv.filter((v) => env[v] === undefined).map((v) => `${name}: ${v}`);
    });
    assert.deepEqual(unset, [], "functions that call the model without Terraform's model settings");
    assert.ok(strings(local(deployment.tf, "apis"), "local.apis").includes("aiplatform.googleapis.com"));
  });
});

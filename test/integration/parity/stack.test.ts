/**
 * An investigation through the deployed topology, each function started under
 * functions-framework with exactly the environment Terraform gives it (secret values from
 * fixtures/secrets.json) and the workflow with the environment Terraform gives it.
 *
 * Stand-ins, each replacing a Google or Slack endpoint and nothing else: the Firestore and
 * Pub/Sub emulators (FIRESTORE_EMULATOR_HOST, PUBSUB_EMULATOR_HOST), the local executions
 * service for the Workflows Executions API (FERRET_WORKFLOWS_URL, to the functions Terraform names the workflow to), a local Slack
 * Web API (FERRET_SLACK_API_URL, notifier only), and METADATA_SERVER_DETECTION=none since no
 * metadata server runs here. Vertex AI cannot be reached without Google credentials, and the
 * code rightly treats missing credentials as a configuration error (422, investigation
 * failed) rather than falling back, so the one configuration override is
 * FERRET_MODEL_PROVIDER=offline; startup.test.ts checks that every function builds its Gemini
 * model from Terraform's model settings. BigQuery is unreachable too, so log queries fail as
 * they would for a dataset ferret cannot read; the investigation must still end in a state a
 * person can act on, never `failed`.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { smokeTest } from "../../../functions/src/doctor/smoke.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import { investigationIdFor, TERMINAL_STATUSES } from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { freePort } from "../../../functions/src/local/free-port.js";
import { type ManagedProcess, startProcess, waitForHttp } from "../../../functions/src/local/processes.js";
import { ensureTopology } from "../../../functions/src/local/pubsub-setup.js";
import { fromRoot, repoRoot } from "../../../functions/src/platform/paths.js";
import { TOPICS } from "../../../functions/src/platform/topics.js";
import { ROLES } from "../../../functions/src/roles/index.js";
import { LocalExecutionsService } from "../../../workflows/local-executions/service.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import { waitFor } from "../../helpers/wait-for.js";
import { functionUrlEnvVar } from "../../unit/terraform/hcl.js";
import { type Deployment, deploymentFor, environmentOf, VARIANTS } from "./variants.js";

const SECRETS = JSON.parse(
  readFileSync(fromRoot("test/integration/parity/fixtures/secrets.json"), "utf8"),
) as Record<string, string>;

describe("an investigation through functions started with Terraform's environment", {
  timeout: 600_000,
}, () => {
  const projectId = uniqueProjectId("parity-stack");
  const processes: ManagedProcess[] = [];
  const logDir = mkdtempSync(join(tmpdir(), "ferret-parity-"));
  let deployment: Deployment;
  let executions: LocalExecutionsService;
  let slack: SlackReceiver;
  let bus: PubSubEventBus;
  let store: FirestoreInvestigationStore;

  before(async () => {
    const emulators = await ensureEmulators();
    // OTX on: the variant with the most secrets and the one that failed to start before.
    const variant = VARIANTS.find((v) => v.name === "enable_otx = true");
    assert.ok(variant);
    deployment = await deploymentFor(variant, projectId);
    slack = await startSlackReceiver({ token: SECRETS["slack-bot-token"] as string });

    const entries = ROLES.filter((e) => deployment.functions.has(e.name));
    const ports = await Promise.all([...entries.map(() => freePort()), freePort()]);
    const urls = Object.fromEntries(entries.map((e, i) => [e.name, `http://127.0.0.1:${ports[i]}`]));
    const executionsPort = ports.at(-1) as number;

    const workflowEnv: Record<string, string> = { ...deployment.workflowEnv };
    for (const e of entries)
      if (e.trigger === "http" && e.calledBy === "workflow")
        workflowEnv[functionUrlEnvVar(e.name)] = urls[e.name] as string;
    executions = new LocalExecutionsService({
      yamlPath: fromRoot("workflows/investigate.yaml"),
      env: workflowEnv,
    });
    await executions.listen(executionsPort);

    const base = {
      FIRESTORE_EMULATOR_HOST: emulators.firestoreHost,
      PUBSUB_EMULATOR_HOST: emulators.pubsubHost,
      METADATA_SERVER_DETECTION: "none",
      // What a process needs to run at all, not configuration.
      ...(process.env.PATH ? { PATH: process.env.PATH } : {}),
      ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
    };
    // The Workflows Executions API stand-in goes to whichever function Terraform tells which
    // workflow to start (FERRET_WORKFLOW_NAME): the sweep's drainer since decision 0039.
    const workflowsStandIn = (env: Record<string, string>): Record<string, string> =>
      "FERRET_WORKFLOW_NAME" in env ? { FERRET_WORKFLOWS_URL: `http://127.0.0.1:${executionsPort}` } : {};
    const standIns: Record<string, Record<string, string>> = {
      notifier: { FERRET_SLACK_API_URL: slack.url },
      slackEvents: { FERRET_SLACK_API_URL: slack.url },
      analystActions: { FERRET_SLACK_API_URL: slack.url },
    };
    const modelStandIn = (env: Record<string, string>): Record<string, string> =>
      "FERRET_MODEL_PROVIDER" in env ? { FERRET_MODEL_PROVIDER: "offline" } : {};
    const ffIndex = createRequire(import.meta.url).resolve("@google-cloud/functions-framework");
    entries.forEach((entry, i) => {
      const fn = deployment.functions.get(entry.name);
      assert.ok(fn);
      processes.push(
        startProcess(
          entry.name,
          process.execPath,
          [
            "--import",
            "tsx",
            join(dirname(ffIndex), "main.js"),
            `--target=${entry.name}`,
            `--signature-type=${entry.trigger === "http" ? "http" : "cloudevent"}`,
            `--port=${ports[i]}`,
            `--source=${fromRoot("functions/src/index.ts")}`,
          ],
          {
            env: {
              ...environmentOf(fn),
              ...base,
              ...standIns[entry.name],
              ...workflowsStandIn(fn.env),
              ...modelStandIn(fn.env),
            },
            logDir,
            cwd: repoRoot(),
          },
        ),
      );
    });
    // Eight cold tsx starts at once are slow on a loaded machine.
    await Promise.all(processes.map((p) => waitForHttp(urls[p.name] as string, p, 300_000)));

    process.env.FIRESTORE_EMULATOR_HOST = emulators.firestoreHost;
    process.env.PUBSUB_EMULATOR_HOST = emulators.pubsubHost;
    const pushPath = (topic: string) => `/projects/${projectId}/topics/${topic}`;
    await ensureTopology(projectId, {
      // As Terraform's push subscriptions: each Pub/Sub-fed entry point gets its topic.
      pushEndpoints: Object.fromEntries(
        entries.flatMap((e) =>
          e.trigger === "pubsub" ? [[e.topic, `${urls[e.name]}${pushPath(e.topic)}`]] : [],
        ),
      ),
      maxDeliveryAttempts: 5,
    });
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
    await executions?.close();
    await slack?.close();
  });

  test("a finding published to scc-findings ends in Slack, investigated by every function", async () => {
    const notification = JSON.parse(
      readFileSync(fromRoot("examples/scenarios/cryptomining/notification.json"), "utf8"),
    ) as JsonObject;
    const finding = normalizeNotification(parseNotification(notification));
    const id = investigationIdFor(finding.name, finding.eventTime);
    await bus.publish(TOPICS.findings, notification);

    const inv = await waitFor(
      `investigation ${id} to finish`,
      async () => {
        const found = await store.get(id);
        return found && TERMINAL_STATUSES.includes(found.status) ? found : undefined;
      },
      480_000,
      1_000,
    );
    assert.notEqual(
      inv.status,
      "failed",
      `the investigation failed: ${JSON.stringify(inv.reason ?? inv.status)}`,
    );
    assert.ok(inv.plan && inv.plan.steps.length > 0, "the planner wrote a plan");
    assert.ok(inv.counters.stepsExecuted > 0, "the step executor ran steps");

    // The notifier posted with the bot token from Secret Manager to the channel from Terraform.
    const channel = deployment.functions.get("notifier")?.env.FERRET_SLACK_CHANNEL;
    const posts = await waitFor("the investigation's thread in Slack", async () => {
      const mine = slack.posts().filter((p) => JSON.stringify(p.args).includes(id));
      return mine.length > 0 ? mine : undefined;
    });
    for (const post of posts) {
      assert.equal(post.authorization, `Bearer ${SECRETS["slack-bot-token"]}`);
      assert.equal(post.args.channel, channel);
    }

    for (const p of processes) {
      const log = readFileSync(p.logFile, "utf8");
      assert.doesNotMatch(log, /ConfigError/, `${p.name} reported a configuration error; see ${p.logFile}`);
    }
  });

  test("ferret doctor's synthetic finding is investigated to its end", async () => {
    const result = await smokeTest(
      { bus, store, now: () => new Date(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
      { projectId, organizationId: "123456789012", timeoutMs: 480_000, pollMs: 1_000 },
    );
    assert.equal(result.ok, true, result.lines.join("; "));
    assert.match(result.lines[0] ?? "", /^investigation inv-[a-f0-9]{24} ended (concluded|needs_human)/);
  });
});

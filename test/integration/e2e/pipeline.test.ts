import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { createPubSub } from "../../../functions/src/adapters/pubsub/client.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { pullMessages } from "../../../functions/src/adapters/pubsub/pull.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding.js";
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
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { type FaultProxy, startFaultProxy } from "../../helpers/fault-proxy.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import { waitFor } from "../../helpers/wait-for.js";

/**
 * The whole pipeline on the local stack, nothing in-process: Pub/Sub emulator push →
 * ingest (functions-framework) → local executions service running workflows/investigate.yaml
 * → planner/stepExecutor/reflector/concluder servers → investigation-events → notifier →
 * a local Slack Web API receiver.
 */
const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));
const expected = JSON.parse(readFileSync(scenario.expectedPath as string, "utf8")) as {
  verdict: string;
  requiredIocs: { type: string; value: string }[];
};
const TOKEN = "xoxb-test-e2e-token";

function variant(suffix: string): { notification: JsonObject; id: string; name: string } {
  const notification = structuredClone(scenario.notification) as JsonObject & { finding: { name: string } };
  notification.finding.name = `${notification.finding.name}${suffix}`;
  const finding = normalizeNotification(parseNotification(notification));
  return { notification, id: investigationIdFor(finding.name, finding.eventTime), name: finding.name };
}

describe("the pipeline on the emulators", { timeout: 600_000 }, () => {
  let stack: LocalStack;
  let store: FirestoreInvestigationStore;
  let bus: PubSubEventBus;
  let slack: SlackReceiver;
  let stepProxy: FaultProxy | undefined;
  const flaky = variant("-flaky");
  const projectId = uniqueProjectId("e2e");

  const finished = (id: string) =>
    waitFor(`investigation ${id} to finish`, async () => {
      const inv = await store.get(id);
      return inv && TERMINAL_STATUSES.includes(inv.status) ? inv : undefined;
    });

  before(async () => {
    await ensureEmulators();
    slack = await startSlackReceiver({ token: TOKEN });
    stack = await startLocalStack({
      projectId,
      workDir: mkdtempSync(join(tmpdir(), "ferret-e2e-")),
      env: {
        FERRET_MODEL_PROVIDER: "offline",
        FERRET_DUCKDB_DIR: scenario.logsDir as string,
        FERRET_STIX_BUNDLE: scenario.stixBundle as string,
        SLACK_BOT_TOKEN: TOKEN,
        FERRET_SLACK_CHANNEL: "C0FERRET",
        FERRET_SLACK_API_URL: slack.url,
      },
      // The first step call of the "flaky" investigation answers 503, as an overloaded
      // instance would; the workflow's retry policy must carry it through.
      routeForWorkflow: async (name, url) => {
        if (name !== "stepExecutor") return url;
        let failed = false;
        stepProxy = await startFaultProxy(url, (body) => {
          const ref = body as { investigationId?: string };
          if (!failed && ref.investigationId === flaky.id) {
            failed = true;
            return 503;
          }
          return undefined;
        });
        return stepProxy.url;
      },
    });
    store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    bus = new PubSubEventBus(projectId);
  });

  after(async () => {
    await bus?.close();
    await stack?.stop();
    await stepProxy?.close();
    await slack?.close();
  });

  test("a notification delivered three times gives one investigation, one conclusion and one Slack thread", async () => {
    const { notification, id, name } = variant("");
    await Promise.all([1, 2, 3].map(() => bus.publish(TOPICS.findings, notification)));
    const inv: Investigation = await finished(id);

    assert.equal(inv.status, "concluded");
    assert.equal(inv.conclusion?.verdict, expected.verdict);
    const iocValues = inv.conclusion?.iocs.map((i) => i.value) ?? [];
    for (const ioc of expected.requiredIocs)
      assert.ok(iocValues.includes(ioc.value), `conclusion IOCs lack ${ioc.value}`);
    assert.ok(inv.plan && inv.plan.steps.length > 0, "the plan is stored");
    const results = await store.listStepResults(id);
    assert.equal(results.length, inv.counters.stepsExecuted, "one stored result per executed step");

    const docs = await createFirestore({ projectId })
      .collection("investigations")
      .where("finding.name", "==", name)
      .get();
    assert.equal(docs.size, 1, "exactly one investigation document for the finding");

    const executions = (await (await fetch(`${stack.executionsUrl}/v1/executions`)).json()) as {
      executions: { argument: string; state: string }[];
    };
    const mine = executions.executions.filter((e) => e.argument.includes(id));
    assert.equal(mine.length, 1, "exactly one workflow execution");
    await waitFor("the workflow execution to end", async () => {
      const list = (await (await fetch(`${stack.executionsUrl}/v1/executions`)).json()) as typeof executions;
      const e = list.executions.find((x) => x.argument.includes(id));
      return e && e.state !== "ACTIVE" ? e : undefined;
    });

    // The notifier posts asynchronously: wait for the verdict reply in the thread.
    const posts = await waitFor("the conclusion in Slack", async () => {
      const all = slack.posts();
      const roots = all.filter((p) => p.args.thread_ts === undefined && JSON.stringify(p.args).includes(id));
      const root = roots[0];
      if (!root) return undefined;
      const replies = all.filter((p) => p.args.thread_ts === root.answer.ts);
      return replies.some(
        (p) =>
          JSON.stringify(p.args.blocks).includes("true_positive") ||
          /true positive/i.test(JSON.stringify(p.args)),
      )
        ? { roots, replies }
        : undefined;
    });
    assert.equal(posts.roots.length, 1, "one thread root");
    assert.ok(posts.replies.length >= results.length, "progress replies for the steps and the conclusion");
    for (const p of [...posts.roots, ...posts.replies]) {
      assert.equal(p.authorization, `Bearer ${TOKEN}`);
      assert.equal(p.args.channel, "C0FERRET");
    }
    // The plan rides on the root, or follows as the first reply when the root went out first.
    const planStep = inv.plan?.steps[0]?.id ?? "?";
    assert.ok(
      [posts.roots[0], ...posts.replies].some((p) => JSON.stringify(p?.args.blocks).includes(planStep)),
      "the thread carries the plan",
    );
  });

  test("a step call failing transiently once is retried by the workflow and its result is written once", async () => {
    await bus.publish(TOPICS.findings, flaky.notification);
    const inv = await finished(flaky.id);
    assert.equal(inv.status, "concluded");
    const calls = (stepProxy?.requests ?? []).filter(
      (r) => (r.body as { investigationId?: string }).investigationId === flaky.id,
    );
    const injected = calls.filter((c) => c.injected === 503);
    assert.equal(injected.length, 1, "one injected failure");
    const retriedStep = (injected[0]?.body as { stepId?: string } | undefined)?.stepId;
    assert.ok(retriedStep, "the injected call named a step");
    const sameStep = calls.filter((c) => (c.body as { stepId: string }).stepId === retriedStep);
    assert.ok(
      sameStep.length >= 2 && sameStep.at(-1)?.status === 200,
      "the workflow retried the failed call and it succeeded",
    );
    const results = await store.listStepResults(flaky.id);
    assert.equal(results.filter((r) => r.stepId === retriedStep).length, 1);
    assert.equal(results.length, inv.counters.stepsExecuted);
  });

  test("a malformed message is dead-lettered with its reason and nothing is written", async () => {
    const before = (await createFirestore({ projectId }).collection("investigations").get()).size;
    const client = createPubSub({ projectId });
    await client.topic(TOPICS.findings).publishMessage({ data: Buffer.from("{this is not json") });
    await client
      .topic(TOPICS.findings)
      .publishMessage({ json: { notificationConfigName: "x", finding: { category: "no name" } } });
    const dead = await pullMessages(client, deadLetterSubscriptionName(TOPICS.findings), {
      maxMessages: 2,
      timeoutMs: 30_000,
    });
    await client.close();
    assert.equal(dead.length, 2, "both messages reach the dead-letter topic");
    const reasons = dead.map((m) => m.attributes.reason ?? "").sort();
    assert.match(reasons.join(" | "), /not valid JSON/);
    assert.match(reasons.join(" | "), /not an SCC notification/);
    const after = (await createFirestore({ projectId }).collection("investigations").get()).size;
    assert.equal(after, before, "no investigation was created");
    const ingestLog = readFileSync(join(stack.logDir, "ingest.log"), "utf8");
    assert.match(ingestLog, /message dead-lettered/);
  });
});

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
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import {
  type Investigation,
  investigationIdFor,
  TERMINAL_STATUSES,
} from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { deadLetterSubscriptionName } from "../../../functions/src/local/pubsub-setup.js";
import { type LocalStack, startLocalStack, TRACE_FILE_NAME } from "../../../functions/src/local/stack.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { TOPICS } from "../../../functions/src/platform/topics.js";
import { readSpanFile } from "../../../functions/src/platform/trace-file.js";
import { investigationTraceIds } from "../../../functions/src/platform/tracing.js";
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
  const workDir = mkdtempSync(join(tmpdir(), "ferret-e2e-"));

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
      workDir,
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

  test("the investigation is one connected trace: ingest, the plan, every step with its model and tool calls, reflection, the conclusion and the notifier", async () => {
    const { id } = variant("");
    const inv = await finished(id);
    const { traceId, rootSpanId } = investigationTraceIds(id);
    const spans = await waitFor("the notifier's span of the conclusion", async () => {
      const mine = readSpanFile(join(workDir, TRACE_FILE_NAME)).filter((s) => s.traceId === traceId);
      return mine.some((s) => s.name === "notifier.handle_message") &&
        mine.some((s) => s.name === "conclusion.conclude")
        ? mine
        : undefined;
    });
    const ids = new Set(spans.map((s) => s.spanId));
    const orphans = spans.filter((s) => s.parentSpanId !== rootSpanId && !ids.has(s.parentSpanId ?? ""));
    assert.deepEqual(
      orphans.map((s) => s.name),
      [],
      "every span hangs off the investigation's root or another of its spans",
    );
    const count = (name: string) => spans.filter((s) => s.name === name).length;
    assert.ok(count("ingest.admit_finding") >= 1, "ingest");
    assert.equal(count("planning.generate_action_plan"), 1, "one plan");
    const steps = spans.filter((s) => s.name === "execution.execute_action");
    assert.equal(steps.length, inv.counters.stepsExecuted, "one span per executed step");
    assert.deepEqual(
      new Set(steps.map((s) => s.attributes["ferret.step_id"])),
      new Set((await store.listStepResults(id)).map((r) => r.stepId)),
      "each step's span names its step",
    );
    // The reflector is called after each wave; a call that evaluated says so, one per reflection it
    // stored (an early reflection runs inside the step that found the decisive result).
    const reflectorCalls = spans.filter((s) => s.name === "reflection.evaluate_action");
    assert.deepEqual(
      reflectorCalls
        .filter((s) => s.attributes["ferret.reflection"] === "evaluated")
        .map((s) => s.attributes["ferret.wave"])
        .sort(),
      (await store.listReflections(id))
        .filter((r) => r.early === undefined)
        .map((r) => r.wave)
        .sort(),
      "one evaluated reflector span per end-of-wave reflection, naming its wave",
    );
    assert.ok(
      reflectorCalls.every((s) =>
        ["evaluated", "not_evaluated"].includes(String(s.attributes["ferret.reflection"])),
      ),
      "every reflector call says whether it evaluated",
    );
    assert.equal(count("conclusion.conclude"), 1);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const phaseOf = (s: (typeof spans)[number]): string | undefined => {
      let at: (typeof spans)[number] | undefined = s;
      while (at && at.parentSpanId !== rootSpanId) at = byId.get(at.parentSpanId ?? "");
      return at?.name;
    };
    const models = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
    const tools = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "execute_tool");
    assert.ok(
      models.length >= 2 && tools.length >= 1,
      `model calls ${models.length}, tool calls ${tools.length}`,
    );
    // The planner reads the log tables' coverage before planning; every other tool call is a step's.
    const phases = tools.map((t) => [t.name, phaseOf(t)]);
    assert.ok(
      phases.every(
        ([name, phase]) =>
          phase === "execution.execute_action" ||
          (name === "execute_tool log_tables" && phase === "planning.generate_action_plan"),
      ) && phases.some(([, phase]) => phase === "execution.execute_action"),
      `tool calls run inside steps: ${JSON.stringify(phases)}`,
    );
    assert.ok(models.every((m) => m.attributes["gen_ai.response.model"] === "offline-playbook"));
    assert.ok(
      models.every((m) => m.attributes["gen_ai.usage.input_tokens"] === undefined),
      "the offline model reports no tokens",
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

  test("each function admits requests as Cloud Run would: the workflow's and Pub/Sub's ID tokens pass, none or a forged one gets 401", async () => {
    // Investigations above went through every gate: the workflow's calls and the pushes carried tokens.
    const gates = stack.capacity();
    for (const name of ["ingest", "planner", "stepExecutor", "reflector", "concluder", "notifier"] as const)
      assert.ok(gates[name].stats.admitted > 0, `${name} admitted the stack's own callers`);
    const forged = `${Buffer.from('{"alg":"RS256","kid":"x"}').toString("base64url")}.${Buffer.from(
      '{"iss":"https://accounts.google.com","aud":"x","email":"ferret-workflow@ferret-local.iam.gserviceaccount.com"}',
    ).toString("base64url")}.c2ln`;
    for (const name of ["planner", "ingest"] as const)
      for (const authorization of [undefined, `Bearer ${forged}`]) {
        const answer = await fetch(stack.functionUrls[name] as string, {
          method: "POST",
          headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
          body: "{}",
        });
        assert.equal(answer.status, 401, `${name} with ${authorization ? "a forged token" : "no token"}`);
      }
  });
});

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { createPubSub } from "../../../functions/src/adapters/pubsub/client.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { pullMessages } from "../../../functions/src/adapters/pubsub/pull.js";
import type { AppDeps } from "../../../functions/src/app/deps.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { loadConfig, toolAllowed } from "../../../functions/src/config/config.js";
import { StorageError } from "../../../functions/src/domain/errors.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { buildToolRegistry } from "../../../functions/src/entry/tool-registry.js";
import { investigateInProcess } from "../../../functions/src/local/in-process-workflow.js";
import { ensureTopology } from "../../../functions/src/local/pubsub-setup.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { TOPICS, type TopicName } from "../../../functions/src/platform/topics.js";
import type { EventBus } from "../../../functions/src/ports/event-bus.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { figure } from "./support/figures.js";
import { queuedInvestigation, variantOf } from "./support/findings.js";

/**
 * The state change commits in Firestore, then publishing its event fails (Pub/Sub briefly
 * unreachable): the operation answers 503 and the workflow (the deployed YAML, run in
 * process) calls it again. The retry finds
 * the work done and must still get the event out, or the notifier never hears of it and
 * Slack misses that reply. Checked on the emulators with a subscription that sees every
 * published event; the fault is injected in front of the real Pub/Sub client.
 */
const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));

class FailingOnce implements EventBus {
  failed: string[] = [];
  constructor(
    private readonly inner: PubSubEventBus,
    private readonly failFor: Set<string>,
  ) {}
  async publish(topic: TopicName, data: JsonObject, attributes?: Record<string, string>): Promise<string> {
    const type = String(data.type);
    if (this.failFor.delete(type)) {
      this.failed.push(type);
      throw new StorageError(`Pub/Sub publish to ${topic} failed: 14 UNAVAILABLE (injected)`, true);
    }
    return this.inner.publish(topic, data, attributes);
  }
}

describe("an event whose publish failed after the commit still goes out on the retry", {
  timeout: 120_000,
}, () => {
  const projectId = uniqueProjectId("outbox");
  const subscription = "events-audit";
  let store: FirestoreInvestigationStore;
  let inner: PubSubEventBus;

  before(async () => {
    await ensureEmulators();
    await ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
    const client = createPubSub({ projectId });
    await client.topic(TOPICS.investigationEvents).createSubscription(subscription);
    await client.close();
    store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    inner = new PubSubEventBus(projectId);
  });

  after(async () => {
    await inner?.close();
  });

  test("planned, step_finished, reflected and concluded each reach the topic", async (t) => {
    const config = loadConfig({
      env: {
        FERRET_DUCKDB_DIR: scenario.logsDir as string,
        FERRET_STIX_BUNDLE: scenario.stixBundle as string,
        // Every step of this plan answers in one wave, so by default the last reflection folds
        // into the conclusion (decision 0026); kept here so that "reflected" is published too.
        FERRET_FOLD_LAST_REFLECTION: "false",
      },
    });
    const { registry, tables } = await buildToolRegistry(config, {}, silentLogger);
    const bus = new FailingOnce(inner, new Set(["planned", "step_finished", "reflected", "concluded"]));
    const deps: AppDeps = {
      config,
      store,
      bus,
      model: createOfflineModel(),
      toolbox: new ToolBox(registry, (n) => toolAllowed(config, n)),
      tables,
      logger: silentLogger,
      now: () => new Date(),
    };
    const v = variantOf(scenario.notification as JsonObject, "-publish-after-commit");
    const queued = queuedInvestigation(v.notification, config, new Date());
    await store.create(queued, [{ type: "created", message: "New finding" }]);
    const id = queued.id;

    // The deployed workflow, in process: it gets a 503 and calls again, as in production.
    const answers: string[] = [];
    const inv = await investigateInProcess(id, deps, {
      around: async (fn, call) => {
        const answer = await call();
        answers.push(`${fn} ${answer.status}`);
        return answer;
      },
    });
    assert.equal(inv.status, "concluded", inv.reason);
    for (const fn of ["planner", "stepExecutor", "reflector", "concluder"]) {
      const mine = answers.filter((a) => a.startsWith(`${fn} `));
      assert.ok(mine.includes(`${fn} 503`), `${fn} answered 503 once: ${mine.join(", ")}`);
      assert.equal(mine.at(-1), `${fn} 200`, `${fn}'s retry succeeded`);
    }
    assert.deepEqual(bus.failed.sort(), ["concluded", "planned", "reflected", "step_finished"]);

    const client = createPubSub({ projectId });
    const stored = await store.listEvents(id);
    const seen = new Set<number>();
    for (let round = 0; round < 10 && seen.size < stored.length; round++) {
      const pulled = await pullMessages(client, subscription, { maxMessages: 100, timeoutMs: 2_000 });
      for (const m of pulled) {
        const body = JSON.parse(m.data) as { investigationId: string; seq: number };
        if (body.investigationId === id) seen.add(body.seq);
      }
    }
    await client.close();
    const missing = stored.filter((e) => !seen.has(e.seq) && e.type !== "created");
    figure(
      t,
      "events whose publish failed after the commit → published on the retry",
      `${bus.failed.length} → ${bus.failed.length - missing.filter((e) => bus.failed.includes(e.type)).length}`,
    );
    assert.deepEqual(
      missing.map((e) => `${e.seq}:${e.type}`),
      [],
      "every committed event reached investigation-events",
    );
  });
});

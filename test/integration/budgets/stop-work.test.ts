import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import type { AppDeps } from "../../../functions/src/app/deps.js";
import { investigationScanBudget } from "../../../functions/src/app/scan-budget.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { type Config, loadConfig, toolAllowed } from "../../../functions/src/config/config.js";
import { BudgetExceededError } from "../../../functions/src/domain/errors.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { buildToolRegistry } from "../../../functions/src/entry/tool-registry.js";
import { investigateInProcess } from "../../../functions/src/local/in-process-workflow.js";
import { ensureTopology } from "../../../functions/src/local/pubsub-setup.js";
import type {
  EmbedRequest,
  GenerateRequest,
  GenerateResponse,
  Model,
} from "../../../functions/src/model/port.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import type { ToolContext, ToolOutput } from "../../../functions/src/tools/port.js";
import { ToolBox, type ToolboxRegistry } from "../../../functions/src/tools/toolbox.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { queuedInvestigation, variantOf } from "../faults/support/findings.js";

const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));

/**
 * The offline model, except that the executor's first answer takes `hangMs` and ignores the
 * abort signal (a provider call that does not honour it). Records when each executor call
 * arrived.
 */
class SlowDeafStepExecutor implements Model {
  readonly name = "offline-playbook";
  readonly offline = true;
  readonly stepExecutorCalls: number[] = [];
  private readonly inner = createOfflineModel();
  constructor(private readonly hangMs: number) {}
  async generate(request: GenerateRequest): Promise<GenerateResponse> {
    if (request.brief.role !== "executor") return this.inner.generate(request);
    this.stepExecutorCalls.push(Date.now());
    await sleep(this.hangMs);
    // The answer is computed as if the signal had not fired.
    const { signal: _ignored, ...deaf } = request;
    return this.inner.generate(deaf);
  }
  embed(request: EmbedRequest): Promise<number[][]> {
    return this.inner.embed(request);
  }
}

/** Records every tool run the registry performs. */
class RecordingRegistry implements ToolboxRegistry {
  readonly runs: Array<{ name: string; at: number }> = [];
  constructor(private readonly inner: ToolboxRegistry) {}
  names() {
    return this.inner.names();
  }
  declarations() {
    return this.inner.declarations();
  }
  run(name: string, args: unknown, ctx: ToolContext): Promise<ToolOutput> {
    this.runs.push({ name, at: Date.now() });
    return this.inner.run(name, args, ctx);
  }
}

describe("budgets that stop work, on the emulators", { timeout: 240_000 }, () => {
  const projectId = uniqueProjectId("stop-work");
  let store: FirestoreInvestigationStore;
  let bus: PubSubEventBus;
  const base = loadConfig({
    env: { FERRET_DUCKDB_DIR: scenario.logsDir as string, FERRET_STIX_BUNDLE: scenario.stixBundle as string },
  });

  before(async () => {
    await ensureEmulators();
    await ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
    store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    bus = new PubSubEventBus(projectId);
  });
  after(async () => {
    await bus?.close();
  });

  test("an abandoned step makes no model call and runs no tool after its deadline", async (t) => {
    const config: Config = {
      ...base,
      agent: {
        ...base.agent,
        stepDeadlineSeconds: 5,
        maxParallelSteps: 1,
        maxConsecutiveFailures: 1,
        // The executor's own deadline is under test: every step goes through its model.
        plannedCalls: "executor",
      },
    };
    const built = await buildToolRegistry(config, {}, silentLogger);
    const registry = new RecordingRegistry(built.registry);
    const model = new SlowDeafStepExecutor(7_000);
    const v = variantOf(scenario.notification as JsonObject, "-stop-work-deadline");
    const queued = queuedInvestigation(v.notification, config, new Date());
    await store.create(queued, [{ type: "created", message: "New finding" }]);
    const deps: AppDeps = {
      config,
      store,
      bus,
      model,
      toolbox: new ToolBox(registry, (tool) => toolAllowed(config, tool)),
      tables: built.tables,
      logger: silentLogger,
      now: () => new Date(),
    };
    const inv = await investigateInProcess(queued.id, deps);
    const [result] = await store.listStepResults(inv.id);
    assert.match(result?.error ?? "", /step deadline of 5s passed/);
    const deadlineAt = (model.stepExecutorCalls[0] ?? 0) + 5_000;
    // The hung call answers at 7 s with tool calls; wait past it for anything the step might still do.
    await sleep(Math.max(0, (model.stepExecutorCalls[0] ?? 0) + 9_000 - Date.now()));
    const lateCalls = model.stepExecutorCalls.filter((at) => at > deadlineAt).length;
    const lateRuns = registry.runs.filter((r) => r.at > deadlineAt).length;
    t.diagnostic(
      `executor calls ${model.stepExecutorCalls.length}, after the deadline ${lateCalls}; tool runs after it ${lateRuns}`,
    );
    assert.equal(model.stepExecutorCalls.length, 1);
    assert.equal(lateCalls, 0);
    assert.equal(lateRuns, 0, "the late answer's tool calls never ran");
  });

  test("parallel reservations on one investigation never pass its scan budget (Firestore transactions)", async (t) => {
    const v = variantOf(scenario.notification as JsonObject, "-stop-work-scan");
    const queued = queuedInvestigation(v.notification, base, new Date());
    await store.create(queued, [{ type: "created", message: "New finding" }]);
    const GiB = 1024 ** 3;
    const budget = investigationScanBudget(store, queued.id, {
      budgetBytes: 30 * GiB,
      worstCaseBytes: 10 * GiB,
    });
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, () => budget.reserve()));
    const admitted = attempts.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
    const refused = attempts.filter((a) => a.status === "rejected");
    t.diagnostic(`8 parallel reservations on a 30 GiB budget at 10 GiB each: ${admitted.length} admitted`);
    assert.equal(admitted.length, 3);
    assert.ok(refused.every((a) => a.status === "rejected" && a.reason instanceof BudgetExceededError));
    assert.equal((await store.require(queued.id)).counters.bytesScanned, 30 * GiB);
    await Promise.all(admitted.map((r, k) => r.settle((k + 1) * GiB)));
    assert.equal((await store.require(queued.id)).counters.bytesScanned, 6 * GiB, "1 + 2 + 3 GiB kept");
    // What was given back can be reserved again.
    await (await budget.reserve()).settle(GiB);
    assert.equal((await store.require(queued.id)).counters.bytesScanned, 7 * GiB);
  });
});

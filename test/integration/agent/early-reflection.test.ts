import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import type { StepExecutorBrief } from "../../../functions/src/agent/briefs.js";
import { FIXED_CALLS_MODEL } from "../../../functions/src/agent/fixed-step.js";
import type { AppDeps } from "../../../functions/src/app/deps.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { loadConfig, toolAllowed } from "../../../functions/src/config/config.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import type { PlanDraft } from "../../../functions/src/domain/plan.js";
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
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { queuedInvestigation, variantOf } from "../faults/support/findings.js";

/**
 * Reflection when it can change the outcome, on the operations with the Firestore emulator
 * and the real tools: a decisive step (a fixed intel call) finishes while a sibling is still
 * in its first model round; the reflection runs at once, cancels the sibling, and the sibling
 * stops before its second round. The wave then concludes without reflecting again.
 */
const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));

const PLAN: PlanDraft = {
  objective: "Is the VM mining against a known pool?",
  successCriteria: ["an intel verdict on the pool"],
  constraints: [],
  steps: [
    {
      id: "intel",
      description: "Look up the finding's indicators.",
      tools: ["threat_intel_lookup"],
      expected: "a malicious verdict on the pool",
      dependsOn: [],
      calls: [{ tool: "threat_intel_lookup", args: { indicators: "{{finding.indicators}}" } }],
      decisive: true,
    },
    {
      id: "slow",
      description: "Browse the log tables for anything odd.",
      tools: ["log_tables"],
      expected: "context",
      dependsOn: [],
    },
  ],
};

/** Plans and reflects by script, records every request, and holds the slow step's first round until the plan cancels it. */
class Choreographed implements Model {
  readonly name = "choreographed";
  readonly offline = false;
  readonly requests: GenerateRequest[] = [];
  readonly order: string[] = [];
  private readonly offlineModel = createOfflineModel();
  private startRound1: () => void = () => {};
  /** The reflector answers only once the sibling is inside its first round, so the race is fixed. */
  private readonly round1Started = new Promise<void>((resolve) => {
    this.startRound1 = resolve;
  });
  constructor(private readonly cancelled: () => Promise<boolean>) {}

  async generate(request: GenerateRequest): Promise<GenerateResponse> {
    this.requests.push(request);
    const usage = { llmCalls: 1, inputTokens: 100, outputTokens: 10 };
    const text = (value: unknown): GenerateResponse => ({
      text: JSON.stringify(value),
      toolCalls: [],
      usage,
      model: this.name,
    });
    switch (request.brief.role) {
      case "planner":
        return text(PLAN);
      case "reflector":
        await Promise.race([this.round1Started, sleep(10_000)]);
        this.order.push("reflect");
        return text({
          achieved: true,
          insights: ["the pool is known-bad"],
          updates: [{ op: "cancel", id: "slow", reason: "moot: the intel verdict decides" }],
          rationale: "decided",
        });
      case "executor": {
        const iteration = (request.brief as StepExecutorBrief).iteration;
        this.order.push(`executor round ${iteration}`);
        if (iteration === 1) {
          this.startRound1();
          for (let i = 0; i < 200 && !(await this.cancelled()); i++) await sleep(50);
          return { toolCalls: [{ id: "t1", name: "log_tables", args: {} }], usage, model: this.name };
        }
        return text({ outcome: "answered", summary: "nothing odd", facts: [], iocs: [] });
      }
      default: {
        const answer = await this.offlineModel.generate(request);
        return { ...answer, usage };
      }
    }
  }

  embed(request: EmbedRequest): Promise<number[][]> {
    return this.offlineModel.embed(request);
  }
}

describe("an early decisive result is reflected on before the wave ends and stops its siblings", {
  timeout: 300_000,
}, () => {
  const projectId = uniqueProjectId("early-reflection");
  let store: FirestoreInvestigationStore;
  let bus: PubSubEventBus;

  before(async () => {
    await ensureEmulators();
    await ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
    store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    bus = new PubSubEventBus(projectId);
  });

  after(async () => {
    await bus?.close();
  });

  it("reflects once, right after the decisive step, and the running sibling stops before round 2", async () => {
    const config = loadConfig({
      env: {
        FERRET_DUCKDB_DIR: scenario.logsDir as string,
        FERRET_STIX_BUNDLE: scenario.stixBundle as string,
      },
    });
    assert.equal(config.agent.reflection, "every_wave", "the default policy reflects per wave");
    const { registry, tables } = await buildToolRegistry(config, {}, silentLogger);
    const v = variantOf(scenario.notification as JsonObject, "-early-reflection");
    const queued = queuedInvestigation(v.notification, config, new Date());
    await store.create(queued, [{ type: "created", message: "New finding" }]);
    const model = new Choreographed(async () => {
      const inv = await store.require(queued.id);
      return inv.plan?.steps.find((s) => s.id === "slow")?.status === "cancelled";
    });
    const deps: AppDeps = {
      config,
      store,
      bus,
      model,
      toolbox: new ToolBox(registry, (tool) => toolAllowed(config, tool)),
      tables,
      logger: silentLogger,
      now: () => new Date(),
    };

    const inv = await investigateInProcess(queued.id, deps);

    assert.equal(inv.status, "concluded", inv.reason);
    // The reflection came while the sibling was still in round 1; round 2 never happened.
    assert.deepEqual(model.order, ["executor round 1", "reflect"]);
    assert.equal(
      model.requests.filter((r) => r.brief.role === "reflector").length,
      1,
      "no second reflection at wave end",
    );
    assert.equal(model.requests.filter((r) => r.brief.role === "executor").length, 1);

    const reflections = await store.listReflections(inv.id);
    assert.equal(reflections.length, 1);
    assert.deepEqual(reflections[0]?.early, { stepId: "intel" });
    assert.deepEqual(
      reflections[0]?.afterSteps,
      ["intel"],
      "it read the decisive result alone: slow had none yet",
    );

    const results = await store.listStepResults(inv.id);
    const intel = results.find((r) => r.stepId === "intel");
    const slow = results.find((r) => r.stepId === "slow");
    assert.equal(intel?.model, FIXED_CALLS_MODEL, "the decisive step ran its planned call without a model");
    assert.ok(
      intel?.toolCalls[0]?.verdicts?.some((x) => x.verdict === "malicious"),
      "the intel call found the pool",
    );
    assert.match(
      slow?.error ?? "",
      /^cancelled by the plan before model round 2: moot: the intel verdict decides/,
    );
    assert.equal(slow?.toolCalls.length, 1, "its first round's call is kept as evidence");
    assert.ok(
      Date.parse(reflections[0]?.createdAt ?? "") <= Date.parse(slow?.finishedAt ?? ""),
      "reflected before the wave's last step finished",
    );
    assert.equal(inv.plan?.steps.find((s) => s.id === "slow")?.status, "cancelled");
    assert.equal(inv.counters.consecutiveFailures, 0, "a stopped step is not a failure");
  });
});

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createFirestore } from "../../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../../../functions/src/adapters/pubsub/event-bus.js";
import { createChatSink } from "../../../functions/src/adapters/slack/create-chat-sink.js";
import type { AppDeps } from "../../../functions/src/app/deps.js";
import { loadScenario } from "../../../functions/src/cli/scenario.js";
import { type Config, loadConfig, toolAllowed } from "../../../functions/src/config/config.js";
import type { Investigation } from "../../../functions/src/domain/investigation.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import type { AgentPolicy } from "../../../functions/src/domain/policy.js";
import { buildToolRegistry } from "../../../functions/src/entry/tool-registry.js";
import { investigateInProcess } from "../../../functions/src/local/in-process-workflow.js";
import { ensureTopology } from "../../../functions/src/local/pubsub-setup.js";
import type {
  EmbedRequest,
  GenerateRequest,
  GenerateResponse,
  Model,
} from "../../../functions/src/model/port.js";
import { handleInvestigationEvent } from "../../../functions/src/notify/notifier.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import type { ToolboxRegistry } from "../../../functions/src/tools/toolbox.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { type SlackReceiver, startSlackReceiver } from "../../helpers/slack-receiver.js";
import { figure } from "./support/figures.js";
import { queuedInvestigation, variantOf } from "./support/findings.js";
import { ledgerOf } from "./support/integrity.js";
import { threadOf } from "./support/slack-thread.js";

/**
 * Budgets from configuration, on the deployed workflow run in this process (its function calls
 * answered by the operations) with the Firestore and Pub/Sub emulators,
 * the real tools and the real notifier: each exhausted budget must stop the investigation as
 * needs_human with the reason, keep what was learned, and reach Slack saying so.
 */
const scenario = loadScenario(fromRoot("examples/scenarios/cryptomining"));
const TOKEN = "xoxb-test-budgets";

/**
 * The offline model with one role changed: a fixed usage per call (token budget), an
 * executor that fails or hangs (consecutive failures, step deadline), a reflector that keeps
 * asking for more steps (revision budget).
 */
class Tampered implements Model {
  readonly name = "offline-playbook";
  readonly offline = true;
  private readonly inner = createOfflineModel();
  constructor(
    private readonly change: {
      usagePerCall?: number;
      executor?: "throw" | { hangMs: number };
      reflectorAddsSteps?: boolean;
    },
  ) {}

  async generate(request: GenerateRequest): Promise<GenerateResponse> {
    const { executor } = this.change;
    if (request.brief.role === "executor" && executor === "throw")
      throw new Error("the executor model crashed");
    if (request.brief.role === "executor" && typeof executor === "object") {
      await sleep(executor.hangMs, undefined, { ref: false });
    }
    if (request.brief.role === "reflector" && this.change.reflectorAddsSteps) {
      const n = JSON.stringify(request.messages).length % 1000;
      const draft = {
        achieved: false,
        insights: ["more evidence is needed"],
        updates: [
          {
            op: "add",
            step: {
              id: `more-${n}`,
              description: "Look again at the host's syslog.",
              tools: ["log_query"],
              expected: "more evidence",
              dependsOn: [],
            },
          },
        ],
        rationale: "the evidence is thin",
      };
      return {
        text: JSON.stringify(draft),
        toolCalls: [],
        usage: { llmCalls: 1, inputTokens: 10, outputTokens: 10 },
        model: this.name,
      };
    }
    const answer = await withoutPlannedCalls(request, await this.inner.generate(request));
    const per = this.change.usagePerCall;
    return per ? { ...answer, usage: { llmCalls: 1, inputTokens: per - 100, outputTokens: 100 } } : answer;
  }

  embed(request: EmbedRequest): Promise<number[][]> {
    return this.inner.embed(request);
  }
}

/**
 * These budgets are spent by executor model rounds; a step whose calls the plan fixed spends
 * none (decision 0019), so the plan here leaves every step to the executor.
 */
async function withoutPlannedCalls(
  request: GenerateRequest,
  answer: GenerateResponse,
): Promise<GenerateResponse> {
  if (request.brief.role !== "planner" || !answer.text) return answer;
  const draft = JSON.parse(answer.text) as { steps: { calls?: unknown; decisive?: unknown }[] };
  for (const step of draft.steps) {
    delete step.calls;
    delete step.decisive;
  }
  return { ...answer, text: JSON.stringify(draft) };
}

describe("budgets stop an investigation as needs_human, with what was learned, in Slack", {
  timeout: 300_000,
}, () => {
  const projectId = uniqueProjectId("budgets");
  let store: FirestoreInvestigationStore;
  let bus: PubSubEventBus;
  let slack: SlackReceiver;
  let registry: ToolboxRegistry;
  let tables: { name: string; description: string }[];
  const base = loadConfig({
    env: { FERRET_DUCKDB_DIR: scenario.logsDir as string, FERRET_STIX_BUNDLE: scenario.stixBundle as string },
  });
  const outcomes: string[] = [];

  before(async () => {
    await ensureEmulators();
    await ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
    store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    bus = new PubSubEventBus(projectId);
    slack = await startSlackReceiver({ token: TOKEN });
    const built = await buildToolRegistry(base, {}, silentLogger);
    registry = built.registry;
    tables = built.tables;
  });

  after(async () => {
    await bus?.close();
    await slack?.close();
  });

  async function investigate(
    name: string,
    policy: Partial<AgentPolicy>,
    model: Model,
    overrides: Partial<Investigation> = {},
  ): Promise<{ inv: Investigation; stopped: string }> {
    const config: Config = { ...base, agent: { ...base.agent, ...policy } };
    const v = variantOf(scenario.notification as JsonObject, `-budget-${name}`);
    const queued = queuedInvestigation(v.notification, config, new Date(), overrides);
    await store.create(queued, [{ type: "created", message: "New finding" }]);
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
    const sink = createChatSink({ token: TOKEN, channel: "C0FERRET", slackApiUrl: slack.url });
    for (const event of await store.listEvents(inv.id)) {
      await handleInvestigationEvent(event, { store, sink, logger: silentLogger });
    }
    const ledger = await ledgerOf(store, inv.id);
    assert.deepEqual(ledger.problems, [], `${name}: exactly-once invariants`);
    const thread = threadOf(slack.posts(), inv.id);
    const stopped = thread.replies
      .map((p) => JSON.stringify(p.args.blocks))
      .find((b) => b.includes("Needs a human"));
    assert.equal(inv.status, "needs_human", `${name}: ${inv.status} (${inv.reason ?? ""})`);
    assert.ok(inv.reason, `${name}: a reason is recorded`);
    assert.ok(stopped, `${name}: the notifier posted the needs_human reply`);
    assert.ok(stopped.includes("Why ferret stopped"), `${name}: the reply says why`);
    assert.ok(stopped.includes("What was learned so far"), `${name}: the reply keeps what was learned`);
    assert.ok(inv.conclusion, `${name}: a needs_human conclusion summarizes the evidence`);
    outcomes.push(`${name} → ${inv.status} (${inv.reason})`);
    return { inv, stopped };
  }

  test("token budget", async (t) => {
    const { inv, stopped } = await investigate(
      "tokens",
      { tokenBudget: 1_000 },
      new Tampered({ usagePerCall: 500 }),
    );
    assert.match(inv.reason ?? "", /token budget is used up/);
    const results = await store.listStepResults(inv.id);
    assert.ok(results.length > 0, "steps ran before the budget ran out");
    // Each step stops at its share of what the plan left: one model call per step of the
    // wave past the budget at most (before the shares: 4 500 of 1 000).
    const atStop = Number(/used up \((\d+) of/.exec(inv.reason ?? "")?.[1]);
    assert.equal(atStop, 500 + results.length * 500, "the plan's call, then one call per step");
    assert.ok(
      results.every((r) => r.iterations <= 1),
      `every step stopped after its first model call: ${results.map((r) => r.iterations).join(",")}`,
    );
    assert.ok(stopped.includes(results[0]?.stepId ?? "?"), "the reply lists the steps that finished");
    figure(t, "token budget 1000 → status", `${inv.status} after ${results.length} step(s): ${inv.reason}`);
  });

  test("consecutive failures", async (t) => {
    const { inv } = await investigate(
      "failures",
      { maxConsecutiveFailures: 2, maxParallelSteps: 1 },
      new Tampered({ executor: "throw" }),
    );
    assert.match(inv.reason ?? "", /2 steps failed in a row/);
    assert.equal(inv.counters.consecutiveFailures, 2);
    figure(t, "max consecutive failures 2 → status", `${inv.status}: ${inv.reason}`);
  });

  test("revision budget", async (t) => {
    const { inv } = await investigate(
      "revisions",
      // A reflector that always wants more is asked even when every step answered (decision 0026).
      { maxRevisions: 0, foldLastReflection: false },
      new Tampered({ reflectorAddsSteps: true }),
    );
    assert.match(inv.reason ?? "", /revision budget is used up/);
    assert.equal(inv.plan?.revision, 0, "no update was applied");
    const refused = (await store.listReflections(inv.id)).flatMap((r) => r.refused);
    assert.ok(refused.length > 0 && refused.every((r) => /revision budget/.test(r.reason)));
    figure(t, "max revisions 0 → status", `${inv.status}: ${inv.reason}`);
  });

  test("step deadline", async (t) => {
    const { inv } = await investigate(
      "step-deadline",
      { stepDeadlineSeconds: 5, maxConsecutiveFailures: 1 },
      new Tampered({ executor: { hangMs: 7_000 } }),
    );
    const results = await store.listStepResults(inv.id);
    assert.ok(results.length > 0 && results.every((r) => /step deadline of 5s passed/.test(r.error ?? "")));
    figure(t, "step deadline 5 s (model hangs 7 s) → status", `${inv.status}: ${inv.reason}`);
  });

  test("total deadline", async (t) => {
    const { inv } = await investigate("total-deadline", {}, createOfflineModel(), {
      deadlineAt: new Date(Date.now() - 1_000).toISOString(),
    });
    assert.match(inv.reason ?? "", /deadline of \d+s passed/);
    figure(t, "total deadline passed → status", `${inv.status}: ${inv.reason}`);
  });

  test("max steps: the plan and every revision stay within the cap", async (t) => {
    const config: Config = { ...base, agent: { ...base.agent, maxSteps: 2 } };
    const v = variantOf(scenario.notification as JsonObject, "-budget-max-steps");
    const queued = queuedInvestigation(v.notification, config, new Date());
    await store.create(queued, [{ type: "created", message: "New finding" }]);
    const inv = await investigateInProcess(queued.id, {
      config,
      store,
      bus,
      model: new Tampered({ reflectorAddsSteps: true }),
      toolbox: new ToolBox(registry, (tool) => toolAllowed(config, tool)),
      tables,
      logger: silentLogger,
      now: () => new Date(),
    });
    const reflections = await store.listReflections(inv.id);
    const refusedForCap = reflections
      .flatMap((r) => r.refused)
      .filter((r) => !/revision budget/.test(r.reason));
    figure(
      t,
      "max steps 2 → plan size, updates refused",
      `${inv.plan?.steps.length} step(s), ${refusedForCap.length} refused; ${inv.status} (${inv.reason ?? ""})`,
    );
    assert.ok((inv.plan?.steps.length ?? 0) <= 2, "the plan never grows past maxSteps");
    assert.ok(inv.status === "concluded" || inv.status === "needs_human");
    outcomes.push(`max-steps → ${inv.status} (${inv.reason ?? ""})`);
  });

  test("summary", (t) => {
    for (const line of outcomes) t.diagnostic(line);
    const stopped = outcomes.filter((o) => o.includes("→ needs_human ("));
    figure(t, "budgets exhausted → needs_human with a reason posted to Slack", `5 → ${stopped.length}`);
    assert.equal(stopped.length, 5);
  });
});

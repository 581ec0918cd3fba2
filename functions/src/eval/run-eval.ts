import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../adapters/firestore/investigation-store.js";
import { PubSubEventBus } from "../adapters/pubsub/event-bus.js";
import { newInvestigation } from "../app/ingest.js";
import { type PlanningSample, planningSamples } from "../app/planning-metrics.js";
import { loadScenario } from "../cli/scenario.js";
import { loadConfig } from "../config/config.js";
import { errorMessage, InvalidInputError } from "../domain/errors.js";
import { normalizeNotification, parseNotification } from "../domain/finding/finding.js";
import { choosePrimaryModel } from "../entry/primary-model.js";
import { appDepsFor, type Runtime } from "../entry/runtime.js";
import { buildToolRegistry } from "../entry/tool-registry.js";
import { investigateWith } from "../local/in-process-workflow.js";
import { ensureTopology } from "../local/pubsub-setup.js";
import { createOfflineModel } from "../offline-model/index.js";
import type { Logger } from "../platform/logger.js";
import type { ChatSink } from "../ports/chat-sink.js";
import { loadExpected } from "./expected.js";
import { type Score, scoreInvestigation } from "./score.js";

export interface ScenarioOutcome {
  scenario: string;
  expected: string;
  status: string;
  score: Score | undefined;
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  wallMs: number;
  /** What the investigation contributes to the planning design's metrics (app/planning-metrics.ts). */
  planning: PlanningSample[];
  error?: string;
}

export interface EvalOptions {
  scenariosDir: string;
  model: "auto" | "gemini" | "offline";
  /** Firestore/Pub/Sub project on the emulators; fresh per run so ids never collide. */
  projectId: string;
  logger: Logger;
  onScenario?: (outcome: ScenarioOutcome) => void;
}

export function listScenarios(dir: string): string[] {
  if (!existsSync(dir)) throw new InvalidInputError(`no such directory: ${dir}`);
  const own = existsSync(join(dir, "notification.json")) && existsSync(join(dir, "expected.json"));
  if (own) return [dir];
  const found = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(dir, e.name))
    .filter((d) => existsSync(join(d, "notification.json")) && existsSync(join(d, "expected.json")))
    .sort();
  if (found.length === 0)
    throw new InvalidInputError(`${dir} holds no scenario (notification.json + expected.json)`);
  return found;
}

const noChat: ChatSink = {
  post: async () => ({ ts: "0" }),
  update: async () => {},
};

/**
 * Runs every scenario through the deployed workflow (workflows/investigate.yaml on the local
 * runner, its calls answered in this process) with the real tools (DuckDB over the scenario's
 * logs, its STIX bundle) and real state (the Firestore emulator): eval measures verdicts,
 * recall and cost on the production sequence, not the transport, which the end-to-end tests
 * and the demo cover.
 */
export async function runEval(options: EvalOptions): Promise<ScenarioOutcome[]> {
  const outcomes: ScenarioOutcome[] = [];
  await ensureTopology(options.projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
  const store = new FirestoreInvestigationStore(createFirestore({ projectId: options.projectId }));
  const bus = new PubSubEventBus(options.projectId);
  const offlineModel = createOfflineModel();
  try {
    for (const dir of listScenarios(options.scenariosDir)) {
      const outcome = await runOne(dir, options, { store, bus, offlineModel });
      outcomes.push(outcome);
      options.onScenario?.(outcome);
    }
  } finally {
    await bus.close();
  }
  return outcomes;
}

async function runOne(
  dir: string,
  options: EvalOptions,
  shared: Pick<Runtime, "store" | "bus" | "offlineModel">,
): Promise<ScenarioOutcome> {
  const started = Date.now();
  const scenario = loadScenario(dir);
  const expected = loadExpected(scenario.expectedPath as string);
  const base = { scenario: scenario.name, expected: expected.verdict };
  try {
    const env = {
      ...process.env,
      FERRET_MODEL_PROVIDER: options.model,
      ...(scenario.logsDir ? { FERRET_DUCKDB_DIR: scenario.logsDir } : {}),
      ...(scenario.stixBundle ? { FERRET_STIX_BUNDLE: scenario.stixBundle } : {}),
    };
    const config = loadConfig({ env });
    const built = await buildToolRegistry(config, env, options.logger);
    const runtime: Runtime = {
      ...shared,
      config,
      logger: options.logger,
      launcher: {
        launch: async () => {
          throw new InvalidInputError("eval drives investigations in-process; nothing is launched");
        },
      },
      chat: noChat,
      registry: built.registry,
      tables: built.tables,
      primaryModel: choosePrimaryModel(config, env, shared.offlineModel, options.logger),
      now: () => new Date(),
    };
    const finding = normalizeNotification(parseNotification(scenario.notification));
    const fresh = newInvestigation(finding, {
      config,
      now: runtime.now(),
      modelName: runtime.primaryModel.name,
    });
    await shared.store.create(fresh, [{ type: "created", message: `eval: ${scenario.name}` }]);
    // Each function call builds its dependencies from the stored investigation, as the
    // deployed functions do, so a fallback to the offline model sticks across calls.
    const inv = await investigateWith(
      fresh.id,
      async (id) => appDepsFor(runtime, await shared.store.get(id)),
      { store: shared.store, config, logger: options.logger },
    );
    const results = await shared.store.listStepResults(fresh.id);
    await built.warehouse?.close();
    return {
      ...base,
      status: inv.status,
      score: scoreInvestigation(inv, results, expected),
      llmCalls: inv.counters.usage.llmCalls,
      inputTokens: inv.counters.usage.inputTokens,
      outputTokens: inv.counters.usage.outputTokens,
      wallMs: Date.now() - started,
      planning: planningSamples(inv),
    };
  } catch (error) {
    return {
      ...base,
      status: "error",
      score: undefined,
      llmCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      wallMs: Date.now() - started,
      // The investigation did not finish; it counts as not completed.
      planning: [{ metric: "completion", value: 0 }],
      error: errorMessage(error),
    };
  }
}

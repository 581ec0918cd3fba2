import { createFirestore } from "../../functions/src/adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../../functions/src/adapters/firestore/investigation-store.js";
import type { AppDeps, IngestDeps } from "../../functions/src/app/deps.js";
import { ingestNotification } from "../../functions/src/app/ingest.js";
import { type Config, loadConfig, toolAllowed } from "../../functions/src/config/config.js";
import type { AgentPolicy } from "../../functions/src/domain/policy.js";
import { buildToolRegistry } from "../../functions/src/entry/tool-registry.js";
import type { Model } from "../../functions/src/model/port.js";
import { createLogger, type Logger } from "../../functions/src/platform/logger.js";
import type { EventBus } from "../../functions/src/ports/event-bus.js";
import type { InvestigationStore } from "../../functions/src/ports/investigation-store.js";
import { ToolBox } from "../../functions/src/tools/toolbox.js";
import type { BenchScenario } from "../lib/scenarios.js";

/** Errors only, on stderr: the benchmark's own output is the table. */
export const benchLogger: Logger = createLogger({
  minSeverity: "ERROR",
  sink: { write: (line) => process.stderr.write(`${line}\n`) },
});

export interface ScenarioDeps {
  deps: AppDeps;
  /** Creates the scenario's investigation through the real ingest code; returns its id. */
  ingest(notification: unknown): Promise<string>;
  close(): Promise<void>;
}

export interface ScenarioDepsOptions {
  scenario: BenchScenario;
  policy: Partial<AgentPolicy>;
  model: Model;
  /** A Firestore project of its own keeps runs from seeing each other as related investigations. */
  projectId: string;
  bus: EventBus;
  wrapStore?: (store: InvestigationStore) => InvestigationStore;
}

/**
 * AppDeps the way functions/src/entry/runtime.ts builds them for a function instance:
 * configuration from FERRET_* values, the Firestore store, the tool registry over the
 * scenario's DuckDB logs and STIX bundle, a toolbox filtered by configuration. Only the
 * model (wrapped for latency) and the agent policy differ.
 */
export async function scenarioDeps(options: ScenarioDepsOptions): Promise<ScenarioDeps> {
  const { scenario } = options;
  const env = {
    FERRET_MODEL_PROVIDER: "offline",
    FERRET_DUCKDB_DIR: scenario.logsDir,
    FERRET_STIX_BUNDLE: scenario.stixBundle,
  };
  const loaded = loadConfig({ env });
  const config: Config = { ...loaded, agent: { ...loaded.agent, ...options.policy } };
  const built = await buildToolRegistry(config, env, benchLogger);
  const firestore = createFirestore({ projectId: options.projectId });
  const raw = new FirestoreInvestigationStore(firestore);
  const store = options.wrapStore ? options.wrapStore(raw) : raw;
  const deps: AppDeps = {
    config,
    store,
    bus: options.bus,
    model: options.model,
    toolbox: new ToolBox(built.registry, (name) => toolAllowed(config, name)),
    tables: built.tables,
    logger: benchLogger,
    now: () => new Date(),
  };
  const ingestDeps: IngestDeps = {
    config,
    store,
    bus: options.bus,
    // The bench runs the workflow in this process itself: ingest only has to record a launch.
    launcher: { launch: async (id) => ({ executionId: `in-process/${id}` }) },
    logger: benchLogger,
    now: deps.now,
    modelName: options.model.name,
  };
  return {
    deps,
    ingest: async (notification) => {
      const outcome = await ingestNotification(notification, ingestDeps);
      if (outcome.outcome !== "started") throw new Error(`ingest did not start: ${JSON.stringify(outcome)}`);
      return outcome.investigationId;
    },
    close: async () => {
      await built.warehouse?.close();
      await firestore.terminate();
    },
  };
}

import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreGovernorStore } from "../adapters/firestore/governor-store.js";
import { FirestoreInvestigationStore } from "../adapters/firestore/investigation-store.js";
import { FirestoreMemoryStore } from "../adapters/firestore/memory-store.js";
import { FirestoreRecentInvestigations } from "../adapters/firestore/recent-investigations.js";
import { PubSubEventBus } from "../adapters/pubsub/event-bus.js";
import { fileTraceReader, noTraceReader } from "../adapters/traces/file-reader.js";
import { type Config, loadConfig } from "../config/config.js";
import { readEnvironment } from "../config/environment.js";
import { ConfigError } from "../domain/errors.js";
import { createLogger } from "../platform/logger.js";
import { authenticatorFor } from "./identity.js";
import type { ConsoleDeps } from "./ports.js";

/**
 * The console's composition root: Firestore for everything it reads, the memory store for the
 * one delete, Pub/Sub for the analyst actions, and the spans of an investigation's trace from
 * the local stack's trace file (FERRET_TRACE_FILE) when one is named. No model, no tools, no
 * warehouse.
 */
/** Said on an investigation's page where no span store is configured. */
const NO_TRACE_STORE =
  "no span store: locally the console reads a run's trace file (FERRET_TRACE_FILE, set by `ferret console --run`); deployed, reading spans from Cloud Trace is not built yet (docs/decisions/0056)";

export interface ConsoleRuntime {
  deps: ConsoleDeps;
  config: Config;
  close(): Promise<void>;
}

export function buildConsoleRuntime(env: NodeJS.ProcessEnv = process.env): ConsoleRuntime {
  const config = loadConfig({ env });
  const environment = readEnvironment(env);
  const projectId = environment.projectId;
  if (!projectId) throw new ConfigError("GOOGLE_CLOUD_PROJECT is not set");
  // Fail at start-up, not on the first request, when IAP verification is not configured.
  authenticatorFor(config);
  const db = createFirestore({ projectId, databaseId: config.firestore.databaseId });
  const bus = new PubSubEventBus(projectId);
  const deps: ConsoleDeps = {
    config,
    store: new FirestoreInvestigationStore(db),
    recent: new FirestoreRecentInvestigations(db),
    memories: new FirestoreMemoryStore(db),
    governor: new FirestoreGovernorStore(db),
    traces: environment.traceFile ? fileTraceReader(environment.traceFile) : noTraceReader(NO_TRACE_STORE),
    bus,
    logger: createLogger({ project: projectId, minSeverity: environment.logLevel }),
    now: () => new Date(),
  };
  return {
    deps,
    config,
    close: async () => {
      await bus.close();
      await db.terminate();
    },
  };
}

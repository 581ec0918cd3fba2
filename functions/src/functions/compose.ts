import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../adapters/firestore/investigation-store.js";
import { FirestoreLessonStore } from "../adapters/firestore/lesson-store.js";
import { FirestoreMemoryStore } from "../adapters/firestore/memory-store.js";
import { FirestoreStepHistoryStore } from "../adapters/firestore/step-history-store.js";
import { PubSubEventBus } from "../adapters/pubsub/event-bus.js";
import { localSccClientOptions } from "../adapters/scc/local-endpoint.js";
import { SecurityCenterFindings } from "../adapters/scc/scc-findings.js";
import { createChatSink } from "../adapters/slack/create-chat-sink.js";
import { SlackChatSink } from "../adapters/slack/slack-chat-sink.js";
import { ExecutionsApiLauncher } from "../adapters/workflows/executions-launcher.js";
import { LocalWorkflowLauncher } from "../adapters/workflows/local-launcher.js";
import { type Config, loadConfig } from "../config/config.js";
import { ConfigError, errorMessage } from "../domain/errors.js";
import { createRecall } from "../memory/recall.js";
import { GeminiModel } from "../model/gemini.js";
import {
  geminiOptionsFromConfig,
  geminiOptionsFromEnv,
  isGeminiConfigured,
} from "../model/gemini-options.js";
import { lifecycleWarning } from "../model/lifecycle.js";
import { createOfflineModel } from "../model/offline/index.js";
import type { Model } from "../model/port.js";
import { withRetry } from "../model/retry.js";
import { createLogger, type Logger, type Severity } from "../platform/logger.js";
import type { WorkflowLauncher } from "../ports/workflow-launcher.js";
import { indexFindingEmbedding } from "../tools/related-findings.js";
import { buildToolCatalog, createFindingEmbeddings, embeddingSpace } from "./catalog.js";
import type { Runtime } from "./runtime.js";

/**
 * The composition root: turns configuration and environment into adapters. Nothing
 * else in the code base decides which adapter serves a port.
 */
export async function buildRuntime(env: NodeJS.ProcessEnv = process.env): Promise<Runtime> {
  const config = loadConfig({ env });
  const projectId = env.GOOGLE_CLOUD_PROJECT ?? env.GCLOUD_PROJECT;
  if (!projectId) throw new ConfigError("GOOGLE_CLOUD_PROJECT is not set");
  const logger = createLogger({
    project: projectId,
    minSeverity: (env.FERRET_LOG_LEVEL as Severity | undefined) ?? "INFO",
  });
  const db = createFirestore({ projectId, databaseId: config.firestore.databaseId });
  const store = new FirestoreInvestigationStore(db);
  const bus = new PubSubEventBus(projectId);
  const offlineModel = createOfflineModel();
  const primaryModel = choosePrimaryModel(config, env, offlineModel, logger);
  const memories = new FirestoreMemoryStore(db);
  const findingEmbeddings = createFindingEmbeddings(db, config, primaryModel);
  const catalog = await buildToolCatalog(
    config,
    env,
    logger,
    {
      store,
      findingEmbeddings,
      embedder: primaryModel,
    },
    {
      model: primaryModel,
      fallbackModel: offlineModel,
      bus,
      // Embeds with the primary model itself: a fallback's vectors would live in another space.
      recall: createRecall({
        model: primaryModel,
        store: memories,
        settings: config.memory,
        embeddingSpace: embeddingSpace(config, primaryModel),
        logger,
      }),
    },
  );
  const chat = createChatSink({
    ...(env.SLACK_BOT_TOKEN ? { token: env.SLACK_BOT_TOKEN } : {}),
    ...(config.slack.channel ? { channel: config.slack.channel } : {}),
    ...(env.FERRET_SLACK_API_URL ? { slackApiUrl: env.FERRET_SLACK_API_URL } : {}),
    ...(env.FERRET_CHAT_FILE ? { file: env.FERRET_CHAT_FILE } : {}),
    logger,
  });
  return {
    config,
    logger,
    store,
    histories: new FirestoreStepHistoryStore(db),
    memories,
    // Embedded with the primary model even after a fallback, so all vectors share one space.
    indexFinding: (inv) =>
      indexFindingEmbedding({ embeddings: findingEmbeddings, embedder: primaryModel }, inv),
    bus,
    launcher: chooseLauncher(config, env, projectId),
    chat,
    ...(chat instanceof SlackChatSink ? { chatInteractions: chat } : {}),
    ...(env.SLACK_SIGNING_SECRET ? { slackSigningSecret: env.SLACK_SIGNING_SECRET } : {}),
    ...(config.scc.writeback
      ? {
          scc: new SecurityCenterFindings(
            env.FERRET_SCC_API_ENDPOINT ? await localSccClientOptions(env.FERRET_SCC_API_ENDPOINT) : {},
          ),
        }
      : {}),
    lessons: new FirestoreLessonStore(db),
    catalog: catalog.catalog,
    tables: catalog.tables,
    primaryModel,
    offlineModel,
    now: () => new Date(),
  };
}

export function choosePrimaryModel(
  config: Config,
  env: NodeJS.ProcessEnv,
  offline: Model,
  logger: Logger,
): Model {
  const wantGemini =
    config.model.provider === "gemini" || (config.model.provider === "auto" && isGeminiConfigured(env));
  if (!wantGemini) return offline;
  if (!isGeminiConfigured(env)) {
    throw new ConfigError(
      "FERRET_MODEL_PROVIDER=gemini but no Gemini credentials: set GEMINI_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION",
    );
  }
  const gemini = new GeminiModel({ ...geminiOptionsFromEnv(env), ...geminiOptionsFromConfig(config.model) });
  for (const model of gemini.modelIds()) {
    const warning = lifecycleWarning(model, new Date());
    if (warning) logger.warn("configured Gemini model is retired or retiring", { model, warning });
  }
  return withRetry(gemini, {
    maxRetryAfterMs: config.model.maxRetryWaitMs,
    onRetry: (info) =>
      logger.warn("model call retried", {
        attempt: info.attempt,
        delayMs: info.delayMs,
        operation: info.operation,
        nudged: info.nudged ?? false,
        error: errorMessage(info.error),
      }),
  });
}

function chooseLauncher(config: Config, env: NodeJS.ProcessEnv, projectId: string): WorkflowLauncher {
  const deadline = config.agent.totalDeadlineSeconds;
  if (env.FERRET_WORKFLOWS_URL) return new LocalWorkflowLauncher(env.FERRET_WORKFLOWS_URL, deadline);
  return new ExecutionsApiLauncher(
    {
      project: projectId,
      location: env.FERRET_WORKFLOW_LOCATION ?? env.GOOGLE_CLOUD_LOCATION ?? "us-central1",
      workflow: env.FERRET_WORKFLOW_NAME ?? "ferret-investigate",
    },
    deadline,
  );
}

let runtime: Promise<Runtime> | undefined;

/** One runtime per process (a function instance), built on first use. */
export function getRuntime(): Promise<Runtime> {
  runtime ??= buildRuntime().catch((error: unknown) => {
    runtime = undefined; // let the next request try again rather than caching the failure
    throw error;
  });
  return runtime;
}

import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreFindingEmbeddings } from "../adapters/firestore/finding-embeddings.js";
import { FirestoreGovernorStore } from "../adapters/firestore/governor-store.js";
import { FirestoreInvestigationStore } from "../adapters/firestore/investigation-store.js";
import { FirestoreLessonStore } from "../adapters/firestore/lesson-store.js";
import { FirestoreMemoryStore } from "../adapters/firestore/memory-store.js";
import { FirestoreStepHistoryStore } from "../adapters/firestore/step-history-store.js";
import { PubSubEventBus } from "../adapters/pubsub/event-bus.js";
import { googleAccessToken, httpWorkflowCallbacks } from "../adapters/workflows/callback-sender.js";
import { type Config, loadConfig } from "../config/config.js";
import { type Environment, readEnvironment, wantsGemini } from "../config/environment.js";
import { ConfigError } from "../domain/errors.js";
import { createRecall } from "../memory/recall.js";
import { createOfflineModel } from "../offline-model/index.js";
import { lazy } from "../platform/lazy.js";
import { createLogger } from "../platform/logger.js";
import type { ChatInteractions, ChatSink } from "../ports/chat-sink.js";
import type { WorkflowLauncher } from "../ports/workflow-launcher.js";
import type { RuntimeNeeds } from "../roles/role.js";
import { createToolRegistry } from "../tools/registry.js";
import { indexFindingEmbedding } from "../tools/related-findings.js";
import { embeddingSpace } from "./embedding-space.js";
import type { Runtime } from "./runtime.js";

/**
 * A function builds only what its role needs (roles/<role>.ts): the notifier never opens the
 * log warehouse, ingest never loads the tools. Adapters a function may not need are imported
 * when first built, so they stay out of the module graph of the functions that do not.
 */
export const ALL_NEEDS: RuntimeNeeds = { tools: true, chat: true };

/**
 * The composition root: turns configuration and environment into adapters. Nothing
 * else in the code base decides which adapter serves a port, and nothing else reads the
 * process environment (config/environment.ts parses it).
 */
export async function buildRuntime(
  env: NodeJS.ProcessEnv = process.env,
  needs: RuntimeNeeds = ALL_NEEDS,
): Promise<Runtime> {
  const config = loadConfig({ env });
  const environment = readEnvironment(env);
  const projectId = environment.projectId;
  if (!projectId) throw new ConfigError("GOOGLE_CLOUD_PROJECT is not set");
  const logger = createLogger({ project: projectId, minSeverity: environment.logLevel });
  await startTelemetry(config, environment, projectId);
  const db = createFirestore({ projectId, databaseId: config.firestore.databaseId });
  const store = new FirestoreInvestigationStore(db);
  const bus = new PubSubEventBus(projectId);
  const offlineModel = createOfflineModel();
  // @google/genai loads only where Gemini thinks.
  const primaryModel = wantsGemini(config.model.provider, environment.gemini)
    ? (await import("./primary-model.js")).choosePrimaryModel(config, env, offlineModel, logger)
    : offlineModel;
  const memories = new FirestoreMemoryStore(db);
  const findingEmbeddings = new FirestoreFindingEmbeddings(db, {
    space: embeddingSpace(config, primaryModel),
  });
  const built = needs.tools
    ? await (await import("./tool-registry.js")).buildToolRegistry(
        config,
        env,
        logger,
        { store, findingEmbeddings, embedder: primaryModel },
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
      )
    : { registry: createToolRegistry([]), tables: [] };
  const openChat = async () =>
    (await import("../adapters/slack/create-chat-sink.js")).createChatSink({
      ...(environment.slack.botToken ? { token: environment.slack.botToken } : {}),
      ...(config.slack.channel ? { channel: config.slack.channel } : {}),
      ...(environment.slack.apiUrl ? { slackApiUrl: environment.slack.apiUrl } : {}),
      ...(environment.slack.chatFile ? { file: environment.slack.chatFile } : {}),
      logger,
    });
  const chat = needs.chat ? await openChat() : chatOnFirstPost(openChat);
  // Only a live Slack sink opens modals; the check loads nothing a lazy sink deferred.
  const chatInteractions = needs.chat ? await slackInteractions(chat) : undefined;
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
    launcher: launcherOnFirstLaunch(() => chooseLauncher(config, environment, projectId)),
    governor: new FirestoreGovernorStore(db),
    chat,
    ...(chatInteractions ? { chatInteractions } : {}),
    ...(environment.slack.signingSecret ? { slackSigningSecret: environment.slack.signingSecret } : {}),
    ...(config.scc.writeback ? { scc: await sccFindings(environment.sccApiEndpoint) } : {}),
    lessons: new FirestoreLessonStore(db),
    workflowCallbacks: httpWorkflowCallbacks(
      environment.localIdentityToken
        ? async () => environment.localIdentityToken as string
        : googleAccessToken(),
    ),
    registry: built.registry,
    tables: built.tables,
    primaryModel,
    offlineModel,
    now: () => new Date(),
  };
}

async function chooseLauncher(
  config: Config,
  environment: Environment,
  projectId: string,
): Promise<WorkflowLauncher> {
  const deadline = config.agent.totalDeadlineSeconds;
  const { url, name, location } = environment.workflows;
  if (url)
    return new (await import("../adapters/workflows/local-launcher.js")).LocalWorkflowLauncher(
      url,
      deadline,
      {
        project: projectId,
        location,
        workflow: name,
      },
    );
  const { ExecutionsApiLauncher } = await import("../adapters/workflows/executions-launcher.js");
  return new ExecutionsApiLauncher({ project: projectId, location, workflow: name }, deadline);
}

/**
 * A chat sink built on the first post, for functions that do not post (the workflow roles,
 * ingest, the memory introspector): their cold start then never loads the Slack SDK.
 */
function chatOnFirstPost(open: () => Promise<ChatSink>): ChatSink {
  const sink = lazy(open);
  return {
    post: async (message) => (await sink()).post(message),
    update: async (ts, message) => (await sink()).update(ts, message),
  };
}

/**
 * A launcher built on the first launch. Only ingest, the sweep and re-investigations start
 * executions, yet every runtime carries a launcher; building it eagerly loaded the Workflows
 * client library into every function's cold start.
 */
function launcherOnFirstLaunch(open: () => Promise<WorkflowLauncher>): WorkflowLauncher {
  const launcher = lazy(open);
  return { launch: async (investigationId) => (await launcher()).launch(investigationId) };
}

const runtimes = new Map<string, () => Promise<Runtime>>();

/**
 * One runtime per process (a function instance), built on first use with what that
 * function needs. Deployed, an instance serves one function; the local stack and the tests
 * may ask for several from one process, so the runtime is kept per kind of need.
 */
export function getRuntime(needs: RuntimeNeeds = ALL_NEEDS): Promise<Runtime> {
  const key = JSON.stringify(needs);
  let runtime = runtimes.get(key);
  if (!runtime) {
    runtime = lazy(() => buildRuntime(process.env, needs));
    runtimes.set(key, runtime);
  }
  return runtime();
}

/** The chat sink itself when it is a live Slack workspace: modals and user groups. */
async function slackInteractions(chat: ChatSink): Promise<ChatInteractions | undefined> {
  const { SlackChatSink } = await import("../adapters/slack/slack-chat-sink.js");
  return chat instanceof SlackChatSink ? chat : undefined;
}

/** The official SCC client, pointed at a local stand-in when the environment names one. */
async function sccFindings(endpoint: string | undefined) {
  const { SecurityCenterFindings } = await import("../adapters/scc/scc-findings.js");
  if (!endpoint) return new SecurityCenterFindings();
  const { localSccClientOptions } = await import("../adapters/scc/local-endpoint.js");
  return new SecurityCenterFindings(await localSccClientOptions(endpoint));
}

/**
 * Spans and metrics: the local stack's span file, or Cloud Trace and Cloud Monitoring when the
 * configuration says so (docs/decisions/0055). The cloud exporters load only then.
 */
async function startTelemetry(config: Config, environment: Environment, projectId: string): Promise<void> {
  const settings = {
    ...config.telemetry,
    ...(environment.traceFile ? { traceFile: environment.traceFile } : {}),
    projectId,
  };
  const telemetry = await import("../platform/telemetry.js");
  const { traces } = telemetry.telemetryDestinations(settings);
  if (traces === "file" && settings.traceFile)
    (await import("../platform/trace-file.js")).startFileTracing(settings.traceFile);
  if (traces === "cloud-trace") {
    const { googleCloudExporters } = await import("../platform/google-cloud-exporters.js");
    telemetry.startDeployedTelemetry(settings, googleCloudExporters);
  }
}

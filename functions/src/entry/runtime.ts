import type { BriefRole } from "../agent/briefs.js";
import type { AppDeps, IngestDeps } from "../app/deps.js";
import { type Config, toolAllowed } from "../config/config.js";
import type { Investigation } from "../domain/investigation.js";
import type { MemoryStore } from "../memory/store.js";
import { chooseModel, servedOffline, transientFailure } from "../model/choice.js";
import { RequestRejectedError } from "../model/errors.js";
import type { FallbackReason } from "../model/fallback.js";
import type { Model } from "../model/port.js";
import { traced } from "../model/traced.js";
import type { Logger } from "../platform/logger.js";
import type { ChatInteractions, ChatSink } from "../ports/chat-sink.js";
import type { EventBus } from "../ports/event-bus.js";
import type { GovernorStore } from "../ports/governor-store.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import type { LessonStore } from "../ports/lesson-store.js";
import type { SccFindings } from "../ports/scc-findings.js";
import type { StepHistoryStore } from "../ports/step-history-store.js";
import type { WorkflowCallbacks } from "../ports/workflow-callbacks.js";
import type { WorkflowLauncher } from "../ports/workflow-launcher.js";
import { ToolBox, type ToolboxRegistry } from "../tools/toolbox.js";

/**
 * Process-wide collaborators of a function instance, built once per cold start (see
 * compose.ts) and shared by all requests the instance serves.
 */
export interface Runtime {
  config: Config;
  logger: Logger;
  store: InvestigationStore;
  /** Step executors' durable message histories (resume and compression); absent in-process. */
  histories?: StepHistoryStore;
  /** Sub-agent memories (recall, introspection); absent where nothing uses them (eval). */
  memories?: MemoryStore;
  /** Makes a concluded investigation findable as a similar finding later. */
  indexFinding?: (investigation: Investigation) => Promise<void>;
  bus: EventBus;
  launcher: WorkflowLauncher;
  /** The storm governor's state (limits, queue, groups); absent in-process (eval, CLI). */
  governor?: GovernorStore;
  chat: ChatSink;
  /** Modals and user groups; only with a Slack bot token. */
  chatInteractions?: ChatInteractions;
  /** SLACK_SIGNING_SECRET; without it the interactions endpoint refuses every request. */
  slackSigningSecret?: string;
  /** SCC write-back, when scc.writeback is on. */
  scc?: SccFindings;
  /** Lessons from disputed verdicts, for later planners. */
  lessons?: LessonStore;
  /** Wakes a workflow paused on an approval, as this function's identity (analystActions). */
  workflowCallbacks?: WorkflowCallbacks;
  registry: ToolboxRegistry;
  tables: { name: string; description: string }[];
  /** Gemini (with retries) when configured, otherwise the offline model. */
  primaryModel: Model;
  offlineModel: Model;
  now: () => Date;
}

/**
 * Dependencies for one request about one investigation, with its model as chooseModel
 * decides (model/choice.ts).
 */
export function appDepsFor(runtime: Runtime, investigation: Investigation | undefined): AppDeps {
  const base = {
    config: runtime.config,
    store: runtime.store,
    ...(runtime.histories ? { histories: runtime.histories } : {}),
    ...(runtime.indexFinding ? { indexFinding: runtime.indexFinding } : {}),
    ...(runtime.lessons ? { lessons: runtime.lessons } : {}),
    bus: runtime.bus,
    // The sub-agent behind log_analysis follows the investigation's sticky fallback too.
    toolbox: new ToolBox(
      investigation && servedOffline(investigation, runtime.now())
        ? offlineOnlyTools(runtime.registry)
        : runtime.registry,
      (name) => toolAllowed(runtime.config, name),
    ),
    tables: runtime.tables,
    logger: investigation ? runtime.logger.child({ investigationId: investigation.id }) : runtime.logger,
    now: runtime.now,
  };
  const choice = chooseModel(
    {
      primary: runtime.primaryModel,
      offline: runtime.offlineModel,
      fallbackToOffline: runtime.config.model.fallbackToOffline,
    },
    investigation,
    { onFallback: (reason) => logFallback(base.logger, reason) },
    runtime.now(),
  );
  const { fallback } = choice;
  return {
    ...base,
    model: traced(choice.model),
    ...(fallback
      ? {
          fallbackReason: () =>
            fallback.reason
              ? { message: fallback.reason.message, transient: transientFailure(fallback.reason.error) }
              : undefined,
          divertToOffline: (error: unknown, role: BriefRole) => fallback.divert(error, role),
        }
      : {}),
  };
}

export function ingestDepsFor(runtime: Runtime): IngestDeps {
  return {
    config: runtime.config,
    store: runtime.store,
    bus: runtime.bus,
    launcher: runtime.launcher,
    logger: runtime.logger,
    now: runtime.now,
    modelName: runtime.primaryModel.name,
    ...(runtime.governor ? { governor: runtime.governor } : {}),
  };
}

/**
 * Why an investigation left its LLM. A provider refusing the request ferret built is ferret's
 * bug (model/errors.ts RequestRejectedError): logged at error level as such, with the provider's
 * words, so it is reported and fixed rather than mistaken for an outage.
 */
function logFallback(logger: Logger, reason: FallbackReason): void {
  const fields = { role: reason.role, from: reason.from, to: reason.to, error: reason.message };
  if (reason.error instanceof RequestRejectedError) {
    logger.error(
      "ferret bug: the model provider refused a request ferret built; continuing on the offline model",
      {
        ...fields,
        providerMessage: reason.error.providerMessage,
      },
    );
  } else {
    logger.warn("model unavailable; continuing on the offline model", fields);
  }
}

/** The registry with every call marked as coming from an investigation that thinks offline now. */
function offlineOnlyTools(registry: ToolboxRegistry): ToolboxRegistry {
  return {
    names: () => registry.names(),
    list: () => registry.list?.() ?? [],
    preview: (name, args, ctx) => registry.preview?.(name, args, ctx) ?? Promise.resolve(undefined),
    declarations: () => registry.declarations(),
    run: (name, args, ctx) => registry.run(name, args, { ...ctx, offlineOnly: true }),
  };
}

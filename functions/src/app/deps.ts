import type { BriefRole } from "../agent/briefs.js";
import type { Config } from "../config/config.js";
import type { Investigation } from "../domain/investigation.js";
import type { Model } from "../model/port.js";
import type { Logger } from "../platform/logger.js";
import type { EventBus } from "../ports/event-bus.js";
import type { GovernorStore } from "../ports/governor-store.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import type { LessonStore } from "../ports/lesson-store.js";
import type { StepHistoryStore } from "../ports/step-history-store.js";
import type { WorkflowLauncher } from "../ports/workflow-launcher.js";
import type { ToolBox } from "../tools/toolbox.js";

/**
 * Everything an investigation operation needs, injected. Function entry points build it
 * from configuration; tests build it with the emulators and a scripted model.
 */
export interface AppDeps {
  config: Config;
  store: InvestigationStore;
  bus: EventBus;
  model: Model;
  toolbox: ToolBox;
  /** Log tables the planner may mention (name + description). */
  tables: { name: string; description: string }[];
  logger: Logger;
  now: () => Date;
  /**
   * Why the configured LLM was replaced by the offline model in this request, once it was, and
   * whether waiting can cure it (a passing unavailability) or not (model/choice.ts).
   */
  fallbackReason?: () => { message: string; transient: boolean } | undefined;
  /** Durable step histories; without it a step's loop lives in memory and cannot be compressed. */
  histories?: StepHistoryStore;
  /** Indexes a finished investigation for similar-finding search; best effort. */
  indexFinding?: (investigation: Investigation) => Promise<void>;
  /** Lessons from analysts' disputes, handed to the planner of findings of the same category. */
  lessons?: LessonStore;
  /**
   * Replaces the configured LLM by the offline model for the rest of this request (true when
   * it did). Absent when there is nothing to fall back to.
   */
  divertToOffline?: (error: unknown, role: BriefRole) => boolean;
}

export interface IngestDeps {
  config: Config;
  store: InvestigationStore;
  bus: EventBus;
  launcher: WorkflowLauncher;
  logger: Logger;
  now: () => Date;
  modelName: string;
  /** The storm governor (limits, queue, grouping); without it every finding starts at once. */
  governor?: GovernorStore;
}

import { toolOutputOf } from "../log-analyst/answer.js";
import {
  dropSession,
  LogAnalystRequestSchema,
  noMemories,
  type PublishSession,
  type RecallMemories,
} from "../log-analyst/contract.js";
import { DEFAULT_MAX_ITERATIONS, runLogAnalyst } from "../log-analyst/loop.js";
import { DEFAULT_WINDOW_HOURS, type WindowHours } from "../log-analyst/window.js";
import type { Model } from "../model/port.js";
import type { LogWarehouse, TableInfo } from "../ports/log-warehouse.js";
import type { RunbookLibrary } from "../sql/runbooks.js";
import { LOG_QUERY_LIMITS } from "./log-pages.js";
import { type AnyTool, defineTool } from "./port.js";

export const LOG_ANALYSIS_TOOL = "log_analysis";

export interface LogAnalysisToolOptions {
  warehouse: LogWarehouse;
  runbooks: RunbookLibrary;
  /** The model the analyst thinks with. */
  model: Model;
  /** Serves a session whose model became unavailable (a fresh fallback wrapper per session). */
  fallbackModel?: Model;
  /** Memories for a request; default none (the memory store wires the real one). */
  recall?: RecallMemories;
  /** Where finished sessions go; default nowhere (entry/tool-registry.ts wires `agent-sessions`). */
  publishSession?: PublishSession;
  /** Rounds of tool calls per session; default 16. */
  maxIterations?: number;
  /** The window around eventTime when the request names none; default 6 h before, 1 h after. */
  windowHours?: WindowHours;
  maxPageBytes?: number;
  maxCellChars?: number;
  maxTranscriptBytes?: number;
  /** The tables to describe (default: asked of the warehouse once, when the tool is built). */
  tables?: readonly Pick<TableInfo, "name" | "description">[];
  now?: () => Date;
}

function firstClause(text: string): string {
  const cut = text.search(/[.:](\s|$)/);
  const clause = cut === -1 ? text : text.slice(0, cut);
  return clause.length <= 140 ? clause : `${clause.slice(0, 139)}…`;
}

function describeTool(tables: readonly Pick<TableInfo, "name" | "description">[]): string {
  return [
    "Ask the log analyst, a sub-agent, one question in plain language about the exported Cloud Logging tables.",
    "It chooses runbooks, checks schemas and the values fields really hold, runs read-only BigQuery SQL and pages results, then answers with findings:",
    "a summary, facts with counts, times and values, IOCs, and the queries it ran with row counts (a few rows each as evidence).",
    "Name exact values (IPs, VM names, principals, domains) and give timeWindow anchored on the finding's eventTime; one question per call.",
    `Tables: ${tables.map((t) => `${t.name} (${firstClause(t.description)})`).join("; ")}.`,
  ].join(" ");
}

/**
 * `log_analysis`: the main agent's one door to the logs through a sub-agent. The sub-agent's
 * trial and error (schema lookups, empty results, retries, pages) stays in its own session;
 * the main agent gets a bounded answer.
 */
export async function createLogAnalysisTool(options: LogAnalysisToolOptions): Promise<AnyTool> {
  const tables = options.tables ?? (await options.warehouse.listTables());
  const settings = {
    warehouse: options.warehouse,
    tables,
    runbooks: options.runbooks,
    limits: {
      maxPageBytes: options.maxPageBytes ?? LOG_QUERY_LIMITS.maxPageBytes,
      maxCellChars: options.maxCellChars ?? LOG_QUERY_LIMITS.maxCellChars,
    },
    model: options.model,
    ...(options.fallbackModel ? { fallbackModel: options.fallbackModel } : {}),
    recall: options.recall ?? noMemories,
    publishSession: options.publishSession ?? dropSession,
    maxIterations: options.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    windowHours: options.windowHours ?? DEFAULT_WINDOW_HOURS,
    ...(options.maxTranscriptBytes ? { maxTranscriptBytes: options.maxTranscriptBytes } : {}),
    now: options.now ?? (() => new Date()),
  };
  return defineTool({
    name: LOG_ANALYSIS_TOOL,
    readOnly: true,
    description: describeTool(tables),
    input: LogAnalystRequestSchema,
    async run(input, ctx) {
      const run = await runLogAnalyst(settings, {
        input,
        ctx,
        ...(ctx.stepId ? { stepId: ctx.stepId } : {}),
        ...(ctx.toolCallId ? { toolCallId: ctx.toolCallId } : {}),
      });
      return toolOutputOf(run);
    },
  });
}

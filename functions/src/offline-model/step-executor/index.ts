import type { StepExecutorBrief } from "../../agent/briefs.js";
import type { StepReport } from "../../domain/results.js";
import type { Message, ToolCallRequest, ToolDeclaration } from "../../model/port.js";
import { toolForIntent } from "../tool-choice.js";
import { callsForIntent, toRequests } from "./calls.js";
import { expandLogAnalystAnswers, isLogAnalystAnswer, readExchanges, roundsDone } from "./exchanges.js";
import { recoveryCalls } from "./recovery.js";
import { buildReport } from "./report.js";
import { intentForStep } from "./step-intent.js";

export type OfflineStepAnswer =
  | { kind: "calls"; calls: ToolCallRequest[] }
  | { kind: "report"; report: StepReport };

export interface OfflineStepRequest {
  brief: StepExecutorBrief;
  messages: readonly Message[];
  /** Declarations offered with this request; absent when only the final report is wanted. */
  tools: readonly ToolDeclaration[] | undefined;
  /** A repair or "report now" request: never call tools again. */
  reportOnly: boolean;
}

/**
 * The step executor's loop, one answer per call: first the step's queries, then at most one
 * recovery round for empty or failed answers, then the report. Tool payloads only feed
 * the evidence readers; nothing inside them can add a call.
 */
export function stepExecutorAnswer(input: OfflineStepRequest): OfflineStepAnswer {
  const { brief } = input;
  const { step, finding } = brief;
  const offered = input.tools ?? [];
  const offeredNames = offered.map((t) => t.name);
  const stepTools = step.tools.filter((t) => offeredNames.length === 0 || offeredNames.includes(t));
  const intent = intentForStep(step, finding, brief.priorResults, stepTools);
  const exchanges = readExchanges(input.messages);
  const canCall =
    !input.reportOnly &&
    !brief.finalReportOnly &&
    offered.length > 0 &&
    brief.iteration <= brief.maxIterations;
  // A compressed history may no longer show earlier rounds; the loop's own count still does,
  // so a resumed step is never queried from scratch again.
  const rounds = Math.max(roundsDone(exchanges), brief.iteration - 1);

  if (canCall && rounds === 0) {
    const planned = callsForIntent(intent, stepTools, offered, step.description);
    if (planned.length > 0) return { kind: "calls", calls: toRequests(step.id, 1, planned) };
    const note = toolForIntent(intent.kind, stepTools)
      ? "The step names no value to query with (no indicator, principal or resource), so nothing was run."
      : undefined;
    return { kind: "report", report: buildReport([], intent, note) };
  }
  // A log-analysis sub-agent already ran its own recovery round; asking it again would repeat it.
  const delegated = exchanges.some(isLogAnalystAnswer);
  if (canCall && rounds === 1 && brief.iteration < brief.maxIterations && !delegated) {
    const planned = recoveryCalls(exchanges, intent, stepTools, offered, finding.eventTime);
    if (planned.length > 0) return { kind: "calls", calls: toRequests(step.id, 2, planned) };
  }
  if (exchanges.length === 0 && rounds > 0) {
    const note =
      "The earlier tool answers of this step were compressed out of the conversation; the step's recorded tool calls hold the evidence.";
    return { kind: "report", report: buildReport([], intent, note) };
  }
  return { kind: "report", report: buildReport(expandLogAnalystAnswers(exchanges), intent) };
}

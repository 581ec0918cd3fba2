import type { Ioc } from "../domain/ioc.js";
import type { Plan } from "../domain/plan.js";
import type { StepReport, StepResult, ToolCall } from "../domain/results.js";

/**
 * What one step hands to later ones: its conclusion and facts, not its raw tool traffic.
 * This keeps every step's prompt small and independent of how earlier steps got there.
 */
export interface ResultSummary {
  stepId: string;
  description: string;
  status: StepResult["status"];
  outcome: StepResult["outcome"];
  summary: string;
  facts: string[];
  iocs: Ioc[];
  error?: string;
}

const MAX_FACTS = 8;
const MAX_IOCS = 15;

export function summarizeResults(plan: Plan, results: readonly StepResult[]): ResultSummary[] {
  const descriptions = new Map(plan.steps.map((s) => [s.id, s.description]));
  return results.map((r) => ({
    stepId: r.stepId,
    description: descriptions.get(r.stepId) ?? "",
    status: r.status,
    outcome: r.outcome,
    summary: r.summary,
    facts: r.facts.slice(0, MAX_FACTS),
    iocs: r.iocs.slice(0, MAX_IOCS),
    ...(r.error ? { error: r.error } : {}),
  }));
}

/** What the reflector and concluder read of each result: the reported findings, not tool traffic. */
export function resultsForPrompt(results: readonly StepResult[]) {
  return results.map((r) => ({
    stepId: r.stepId,
    status: r.status,
    outcome: r.outcome,
    summary: r.summary,
    facts: r.facts,
    iocs: r.iocs,
    error: r.error ?? null,
  }));
}

const MAX_REPORT_FACTS = 20;

/**
 * A fixed-call step's report, written by code from its tool calls instead of by an executor
 * model: each call's own summary becomes a fact. The outcome is "failed" when no call
 * answered, "no_data" when every answer came back empty (no rows, no reports), else
 * "answered". The summary states only counts and which tools ran, never tool payload text,
 * so nothing a tool returned is promoted into the step's headline.
 */
export function reportFromToolCalls(stepId: string, calls: readonly ToolCall[]): StepReport {
  const answered = calls.filter((c) => c.ok);
  const empty = answered.filter((c) => isEmptyAnswer(c.data));
  const outcome: StepReport["outcome"] =
    answered.length === 0 ? "failed" : empty.length === answered.length ? "no_data" : "answered";
  const tools = [...new Set(calls.map((c) => c.name))].join(", ");
  const summary =
    `Step ${stepId} ran ${calls.length} planned call(s) of ${tools} without a model round: ` +
    `${answered.length} answered${empty.length ? ` (${empty.length} with no rows or reports)` : ""}, ` +
    `${calls.length - answered.length} failed. The facts quote each tool's own summary.`;
  return {
    outcome,
    summary,
    facts: calls
      .slice(0, MAX_REPORT_FACTS)
      .map((c) => clip(`${c.name}: ${c.ok ? "" : "failed: "}${c.summary}`, 500)),
    iocs: [],
  };
}

/** A tool answer that holds nothing: an empty page of rows or an empty list of intel reports. */
function isEmptyAnswer(data: ToolCall["data"]): boolean {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return false;
  const list = Array.isArray(data.rows) ? data.rows : Array.isArray(data.reports) ? data.reports : undefined;
  return list !== undefined && list.length === 0;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

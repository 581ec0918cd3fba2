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

/**
 * What the reflector and concluder read of each result: the reported findings, not tool
 * traffic. Indicators are grouped by where they were seen, so a context shared by many
 * (24 IPs "seen in runbook vpc_flows_from_instance results") is written once; no type,
 * value, context or path is dropped. `error` appears only when there is one.
 */
export function resultsForPrompt(results: readonly StepResult[]) {
  return results.map((r) => ({
    stepId: r.stepId,
    status: r.status,
    outcome: r.outcome,
    summary: r.summary,
    facts: r.facts,
    iocs: groupIocs(r.iocs),
    ...(r.error ? { error: r.error } : {}),
  }));
}

export interface IocGroup {
  /** Where these indicators were seen; absent when the result gave none. */
  context?: string;
  /** Values by IOC type, in the order the result reported them. */
  values: Partial<Record<Ioc["type"], string[]>>;
  /** JSON paths in the finding, by value, for indicators read from the finding. */
  paths?: Record<string, string>;
}

/** Indicators grouped by context, then by type; lossless (every value, context and path kept). */
export function groupIocs(iocs: readonly Ioc[]): IocGroup[] {
  const groups = new Map<string, IocGroup>();
  for (const ioc of iocs) {
    const key = ioc.context ?? "";
    let group = groups.get(key);
    if (!group) {
      group = { ...(ioc.context !== undefined ? { context: ioc.context } : {}), values: {} };
      groups.set(key, group);
    }
    const list = group.values[ioc.type] ?? [];
    list.push(ioc.value);
    group.values[ioc.type] = list;
    if (ioc.path !== undefined) group.paths = { ...group.paths, [ioc.value]: ioc.path };
  }
  return [...groups.values()];
}

const MAX_REPORT_FACTS = 20;

/**
 * A fixed-call step's report, written by code from its tool calls instead of by a step executor
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

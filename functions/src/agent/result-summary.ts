import type { Ioc } from "../domain/ioc.js";
import type { Plan } from "../domain/plan.js";
import type { StepResult } from "../domain/results.js";

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

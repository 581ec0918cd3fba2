import type { Ioc } from "../../../../functions/src/domain/ioc.js";
import type { JsonValue } from "../../../../functions/src/domain/json.js";
import type { Plan, Step } from "../../../../functions/src/domain/plan.js";
import type { StepResult, ToolCall } from "../../../../functions/src/domain/results.js";

export function step(id: string, description: string, tools: string[], overrides: Partial<Step> = {}): Step {
  return {
    id,
    description,
    tools,
    expected: "evidence",
    dependsOn: [],
    status: "pending",
    addedInRevision: 0,
    ...overrides,
  };
}

export function plan(steps: Step[], revision = 0): Plan {
  return { objective: "objective", successCriteria: ["criterion"], constraints: [], steps, revision };
}

export function call(name: string, args: ToolCall["args"], data: JsonValue, ok = true): ToolCall {
  return {
    id: `${name}-${Math.random().toString(36).slice(2, 8)}`,
    name,
    args,
    ok,
    summary: ok ? "ok" : "failed",
    data,
    durationMs: 1,
  };
}

export function rowsCall(
  runbook: string,
  params: Record<string, string>,
  rows: Record<string, JsonValue>[],
): ToolCall {
  return call(
    "log_query",
    { runbook, params },
    { runbook, params, columns: Object.keys(rows[0] ?? {}), rows, totalRows: rows.length, truncated: false },
  );
}

export function intelCall(
  reports: { type: string; value: string; verdict: string; tags?: string[]; related?: string[] }[],
): ToolCall {
  return call(
    "threat_intel_lookup",
    { indicators: reports.map((r) => ({ type: r.type, value: r.value })) },
    {
      reports: reports.map((r) => ({
        indicator: { type: r.type, value: r.value },
        verdict: r.verdict,
        sources: ["feed"],
        tags: r.tags ?? [],
        related: r.related ?? [],
      })),
    },
  );
}

export function result(
  stepId: string,
  outcome: StepResult["outcome"],
  toolCalls: ToolCall[] = [],
  iocs: Ioc[] = [],
): StepResult {
  return {
    stepId,
    status: outcome === "failed" ? "failed" : "done",
    outcome,
    summary: `${stepId} ${outcome}`,
    facts: [],
    iocs,
    toolCalls,
    iterations: 1,
    usage: { llmCalls: 1, inputTokens: 1, outputTokens: 1 },
    model: "offline-playbook",
    startedAt: "2025-03-05T00:00:00.000Z",
    finishedAt: "2025-03-05T00:00:01.000Z",
  };
}

/** Marks the plan's steps with the status their results imply. */
export function withStatuses(p: Plan, results: readonly StepResult[]): Plan {
  const status = new Map(results.map((r) => [r.stepId, r.status]));
  return {
    ...p,
    steps: p.steps.map((s) => (status.has(s.id) ? { ...s, status: status.get(s.id) ?? s.status } : s)),
  };
}

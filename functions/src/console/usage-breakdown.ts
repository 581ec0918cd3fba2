import { addUsage, FIXED_CALLS_MODEL, type Usage, ZERO_USAGE } from "../domain/results.js";

/**
 * Where an investigation's model calls went, in rows that add up to its total (issue 29: step
 * cards said 0 calls while the total said 3). Step results and reflections record their own
 * usage; the planner's, the concluder's and the compressor's are only in the total, so their
 * row is the remainder.
 */
export interface UsageRow {
  /** What the row counts: a step id, "reflections", "plan and conclusion". */
  where: string;
  /** The step's anchor on the page, when the row is a step. */
  stepId: string;
  note: string;
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  cost: string;
}

export interface UsageBreakdown {
  rows: UsageRow[];
  total: UsageRow;
  /** The parts recorded separately exceed the total: old records, or a retried write. */
  inconsistent: boolean;
}

function cost(u: Usage): string {
  return u.costUsd === undefined ? "" : `$${u.costUsd.toFixed(4)}`;
}

function rowOf(where: string, u: Usage, options: { stepId?: string; note?: string } = {}): UsageRow {
  return {
    where,
    stepId: options.stepId ?? "",
    note: options.note ?? "",
    llmCalls: u.llmCalls,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cost: cost(u),
  };
}

function minus(a: Usage, b: Usage): Usage {
  const out: Usage = {
    llmCalls: a.llmCalls - b.llmCalls,
    inputTokens: a.inputTokens - b.inputTokens,
    outputTokens: a.outputTokens - b.outputTokens,
  };
  if (a.costUsd !== undefined) out.costUsd = a.costUsd - (b.costUsd ?? 0);
  return out;
}

/** Why a step made no model call, said on its row and its card. */
export function stepCallNote(model: string, u: Usage): string {
  if (u.llmCalls > 0) return "";
  return model === FIXED_CALLS_MODEL
    ? "no model call: the plan named the tool calls, which ran as written"
    : "no model call";
}

export function usageBreakdown(
  total: Usage,
  steps: readonly { stepId: string; model: string; usage: Usage }[],
  reflections: readonly { usage: Usage }[],
  options: { compressed: boolean },
): UsageBreakdown {
  const stepRows = steps.map((s) =>
    rowOf(`step ${s.stepId}`, s.usage, { stepId: s.stepId, note: stepCallNote(s.model, s.usage) }),
  );
  const reflected = reflections.reduce((sum, r) => addUsage(sum, r.usage), ZERO_USAGE);
  const itemized = [...steps.map((s) => s.usage), reflected].reduce(addUsage, ZERO_USAGE);
  const rest = minus(total, itemized);
  const inconsistent = rest.llmCalls < 0 || rest.inputTokens < 0 || rest.outputTokens < 0;
  const restLabel = options.compressed ? "plan, conclusion and compression" : "plan and conclusion";
  return {
    rows: [
      ...stepRows,
      rowOf(`reflections (${reflections.length})`, reflected),
      rowOf(restLabel, inconsistent ? ZERO_USAGE : rest, {
        note: "the planner's and concluder's calls (and repairs) are counted only in the total",
      }),
    ],
    total: rowOf("total", total),
    inconsistent,
  };
}

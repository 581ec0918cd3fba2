import type { Ioc } from "../domain/ioc.js";
import { mergeIocs } from "../domain/ioc.js";
import type { StepReport, StepResult, ToolCall, Usage } from "../domain/results.js";
import type { StepExecutorInput } from "./step-input.js";

const MAX_RESULT_IOCS = 50;

export function buildResult(
  input: StepExecutorInput,
  parts: {
    report: StepReport;
    toolCalls: ToolCall[];
    toolIocs: Ioc[];
    usage: Usage;
    iterations: number;
    startedAt: string;
    modelName: string;
    error?: string;
  },
): StepResult {
  const failed = parts.report.outcome === "failed";
  const allToolsFailed = parts.toolCalls.length > 0 && parts.toolCalls.every((c) => !c.ok);
  const error =
    parts.error ??
    (allToolsFailed
      ? `every tool call failed: ${parts.toolCalls.map((c) => c.summary).join(" | ")}`
      : undefined);
  return {
    stepId: input.step.id,
    status: failed ? "failed" : "done",
    outcome: parts.report.outcome,
    summary: parts.report.summary,
    facts: parts.report.facts,
    iocs: mergeIocs(parts.report.iocs, parts.toolIocs).slice(0, MAX_RESULT_IOCS),
    toolCalls: parts.toolCalls,
    iterations: parts.iterations,
    ...(error ? { error } : {}),
    usage: parts.usage,
    model: parts.modelName,
    startedAt: parts.startedAt,
    finishedAt: input.now().toISOString(),
  };
}

/**
 * The step's report when it ran out of tokens: written by code from the tool summaries, since
 * asking the model for one would spend past the allowance.
 */
export function allowanceReport(
  toolCalls: readonly ToolCall[],
  spent: number,
  allowance: number,
  rounds: number,
): StepReport {
  const answered = toolCalls.filter((c) => c.ok);
  return {
    outcome: "failed",
    summary:
      `Stopped at this step's share of the token budget (${spent} of ${allowance} tokens) after ${rounds} round(s) of tool calls, ` +
      `before the model reported; ${answered.length} of ${toolCalls.length} tool call(s) answered.`,
    facts: answered.slice(-10).map((c) => `${c.name}: ${c.summary}`.slice(0, 500)),
    iocs: [],
  };
}

/** The report of a step the plan cancelled while it ran: what its tools found before it stopped. */
export function cancelledReport(toolCalls: readonly ToolCall[], reason: string, round: number): StepReport {
  const answered = toolCalls.filter((c) => c.ok);
  return {
    outcome: "failed",
    summary:
      `Stopped before model round ${round}: the plan cancelled this step (${reason.slice(0, 500)}); ` +
      `${answered.length} of ${toolCalls.length} tool call(s) had answered.`,
    facts: answered.slice(-10).map((c) => `${c.name}: ${c.summary}`.slice(0, 500)),
    iocs: [],
  };
}

import type { Ioc } from "../domain/ioc.js";
import type { FixedCall } from "../domain/plan.js";
import { resolveArguments } from "../domain/plan-refs.js";
import {
  addUsage,
  FIXED_CALLS_MODEL,
  type StepResult,
  type ToolCall,
  type Usage,
  ZERO_USAGE,
} from "../domain/results.js";
import type { ToolCallRequest, ToolResponse } from "../model/port.js";
import { reportFromToolCalls } from "./result-summary.js";
import { runToolCall, toolTokenShare } from "./step-calls.js";
import type { StepExecutorInput } from "./step-input.js";
import { buildResult } from "./step-result.js";

/** The planned round, handed to the step executor model when its answers need judgment. */
export interface FixedRound {
  requests: ToolCallRequest[];
  responses: ToolResponse[];
  toolCalls: ToolCall[];
  toolIocs: Ioc[];
  usage: Usage;
  startedAt: string;
}

export type FixedOutcome = { kind: "done"; result: StepResult } | { kind: "judge"; round: FixedRound };

export { FIXED_CALLS_MODEL };

/**
 * Runs a step whose tool calls the plan fixed (ReWOO-style): references are resolved from
 * the finding and earlier results, the calls go through the same toolbox gates as a
 * model's calls (registry, configuration, the step's own tools), and the report is written
 * by code when at least one call answered with data. No model is asked anything then; a
 * sub-agent tool may still spend its own tokens, which count against the step as usual.
 * When every answer came back empty or failed, the round goes to the step executor model
 * ("judge") as its first round, since what to try next is a judgment.
 *
 * A reference that cannot be resolved fails the step before any call runs, naming the
 * reference and why (the finding lacks the field, the step it reads failed or found
 * nothing): running the other calls would make the step look answered when a planned
 * check was skipped.
 */
export async function runFixedStep(
  input: StepExecutorInput,
  calls: readonly FixedCall[],
): Promise<FixedOutcome> {
  const startedAt = input.now().toISOString();
  const resolved = calls.map((call) => ({
    call,
    resolution: resolveArguments(call.args, { finding: input.finding, results: input.priorResults }),
  }));
  const unresolved = resolved.flatMap(({ call, resolution }, i) =>
    resolution.ok ? [] : [`call ${i + 1} (${call.tool}): ${resolution.reason}`],
  );
  const toolCalls: ToolCall[] = [];
  const toolIocs: Ioc[] = [];
  let usage: Usage = ZERO_USAGE;
  if (unresolved.length > 0) {
    const error = `planned call arguments could not be resolved: ${unresolved.join(" | ")}`;
    const result = buildResult(input, {
      report: {
        outcome: "failed",
        summary: `Step ${input.step.id} did not run: ${error}`.slice(0, 2_000),
        facts: [],
        iocs: [],
      },
      toolCalls,
      toolIocs,
      usage,
      iterations: 0,
      startedAt,
      modelName: FIXED_CALLS_MODEL,
      error,
    });
    return { kind: "done", result };
  }
  const requests: ToolCallRequest[] = resolved.map(({ call, resolution }, i) => ({
    id: `${input.step.id}-plan-${i}`,
    name: call.tool,
    args: resolution.ok ? resolution.args : {},
  }));
  // Fixed calls share the step's allowance like one model turn's calls do.
  const share = toolTokenShare(input.tokenAllowance, usage, requests.length);
  const responses = await Promise.all(
    requests.map((request) =>
      runToolCall(input, request, toolCalls, toolIocs, share, (spent) => {
        usage = addUsage(usage, spent);
      }),
    ),
  );
  // Parallel calls finish in any order; the record keeps the plan's order.
  toolCalls.sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
  const report = reportFromToolCalls(input.step.id, toolCalls);
  if (report.outcome !== "answered") {
    return { kind: "judge", round: { requests, responses, toolCalls, toolIocs, usage, startedAt } };
  }
  const result = buildResult(input, {
    report,
    toolCalls,
    toolIocs,
    usage,
    iterations: 0,
    startedAt,
    modelName: FIXED_CALLS_MODEL,
  });
  return { kind: "done", result };
}

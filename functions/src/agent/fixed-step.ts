import type { Ioc } from "../domain/ioc.js";
import type { FixedCall } from "../domain/plan.js";
import { resolveArguments } from "../domain/plan-refs.js";
import { addUsage, type StepResult, type ToolCall, type Usage, ZERO_USAGE } from "../domain/results.js";
import { buildResult, type ExecutorInput, runToolCall } from "./executor.js";
import { reportFromToolCalls } from "./result-summary.js";

/** What a result records as its "model" when no model ran. */
export const FIXED_CALLS_MODEL = "none (planned calls)";

/**
 * Runs a step whose tool calls the plan fixed (ReWOO-style): references are resolved from
 * the finding and earlier results, the calls go through the same toolbox gates as a
 * model's calls (registry, configuration, the step's own tools), and the report is written
 * by code. No model is asked anything; a sub-agent tool may still spend its own tokens,
 * which count against the step as usual.
 *
 * A reference that cannot be resolved fails the step before any call runs, naming the
 * reference and why (the finding lacks the field, the step it reads failed or found
 * nothing): running the other calls would make the step look answered when a planned
 * check was skipped.
 */
export async function runFixedStep(input: ExecutorInput, calls: readonly FixedCall[]): Promise<StepResult> {
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
    return buildResult(input, {
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
  }
  await Promise.all(
    resolved.map(({ call, resolution }, i) =>
      runToolCall(
        input,
        { id: `${input.step.id}-plan-${i}`, name: call.tool, args: resolution.ok ? resolution.args : {} },
        toolCalls,
        toolIocs,
        (spent) => {
          usage = addUsage(usage, spent);
        },
      ),
    ),
  );
  // Parallel calls finish in any order; the record keeps the plan's order.
  toolCalls.sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
  return buildResult(input, {
    report: reportFromToolCalls(input.step.id, toolCalls),
    toolCalls,
    toolIocs,
    usage,
    iterations: 0,
    startedAt,
    modelName: FIXED_CALLS_MODEL,
  });
}

import type { Ioc } from "../domain/ioc.js";
import { type JsonObject, type JsonValue, jsonBytes } from "../domain/json.js";
import type { ToolCall, Usage } from "../domain/results.js";
import type { ToolCallRequest, ToolResponse } from "../model/port.js";
import type { ToolOutput } from "../tools/port.js";
import type { StepExecutorInput } from "./step-input.js";

/** Tool output handed back to the model is capped; tools page their rows, this is the backstop. */
const MAX_TOOL_RESPONSE_BYTES = 24_000;

/**
 * What each tool call of a turn may spend inside itself (a sub-agent's model calls): the
 * step's allowance left after this turn's model call, split evenly across the calls run.
 */
export function toolTokenShare(
  allowance: number | undefined,
  spent: Usage,
  calls: number,
): number | undefined {
  if (allowance === undefined || calls === 0) return undefined;
  const left = allowance - (spent.inputTokens + spent.outputTokens);
  return Math.max(0, Math.floor(left / calls));
}

/** A call past the per-turn cap: recorded and answered, never run. */
export function refuseOverCap(
  input: StepExecutorInput,
  call: ToolCallRequest,
  cap: number,
  calls: ToolCall[],
): ToolResponse {
  const summary = `refused: at most ${cap} tool call(s) run per turn and this turn asked for more; ask for it again in your next turn if you still need it.`;
  calls.push({
    id: call.id,
    name: call.name,
    args: call.args,
    ok: false,
    summary,
    data: null,
    error: summary,
    durationMs: 0,
  });
  input.logger.warn("tool call over the per-turn cap refused", {
    stepId: input.step.id,
    tool: call.name,
    cap,
  });
  return { id: call.id, name: call.name, response: { ok: false, summary, untrusted_data: null } };
}

export async function runToolCall(
  input: StepExecutorInput,
  call: ToolCallRequest,
  calls: ToolCall[],
  iocs: Ioc[],
  tokenShare: number | undefined,
  spend: (usage: Usage) => void,
): Promise<ToolResponse> {
  const started = Date.now();
  const outcome = await input.toolbox.run(call.name, call.args, input.step.tools, {
    investigationId: input.investigationId,
    finding: input.finding,
    logger: input.logger.child({ stepId: input.step.id, tool: call.name }),
    stepId: input.step.id,
    toolCallId: call.id,
    ...(input.approvals ? { approvals: input.approvals } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(tokenShare !== undefined ? { tokenAllowance: tokenShare } : {}),
    ...(input.scanBudget ? { scanBudget: input.scanBudget } : {}),
  });
  const { record, response } = recordedCall(call, outcome, started);
  calls.push(record);
  iocs.push(...(outcome.iocs ?? []));
  // A sub-agent's model calls count against this step, and so against the investigation's budget.
  if (outcome.usage) spend(outcome.usage);
  input.onToolCall?.(record);
  return response;
}

/**
 * A tool's output as the call record the journal keeps and as the answer the model reads: the
 * data bounded, fenced as untrusted. The bench's ReAct loop builds its calls with this too, so
 * the two agents it compares read the same bytes.
 */
export function recordedCall(
  call: ToolCallRequest,
  outcome: ToolOutput,
  started: number,
): { record: ToolCall; response: ToolResponse } {
  const data = boundData(outcome.data);
  const record: ToolCall = {
    id: call.id,
    name: call.name,
    args: call.args,
    ok: outcome.ok,
    summary: outcome.summary,
    data,
    ...(outcome.ok ? {} : { error: outcome.summary }),
    durationMs: Date.now() - started,
    ...(outcome.verdicts?.length ? { verdicts: outcome.verdicts.slice(0, 50) } : {}),
    ...(outcome.approvalRequest ? { approvalRequest: outcome.approvalRequest } : {}),
    ...(outcome.approvedBy ? { approvedBy: outcome.approvedBy } : {}),
  };
  const envelope: JsonObject = { ok: outcome.ok, summary: outcome.summary, untrusted_data: data };
  return { record, response: { id: call.id, name: call.name, response: envelope } };
}

function boundData(data: JsonValue): JsonValue {
  if (jsonBytes(data) <= MAX_TOOL_RESPONSE_BYTES) return data;
  const text = JSON.stringify(data);
  return { truncated: true, preview: text.slice(0, MAX_TOOL_RESPONSE_BYTES - 200) };
}

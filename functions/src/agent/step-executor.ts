import type { Approval } from "../domain/approval.js";
import { errorMessage } from "../domain/errors.js";
import type { Finding } from "../domain/finding.js";
import { type Ioc, mergeIocs } from "../domain/ioc.js";
import { type JsonObject, type JsonValue, jsonBytes } from "../domain/json.js";
import type { Plan, Step } from "../domain/plan.js";
import {
  addUsage,
  type StepReport,
  StepReportSchema,
  type StepResult,
  type ToolCall,
  type Usage,
  ZERO_USAGE,
} from "../domain/results.js";
import { withDeadline } from "../model/deadline.js";
import { isTokenLimitError } from "../model/errors.js";
import type { GenerateRequest, Message, Model, ToolCallRequest, ToolResponse } from "../model/port.js";
import { generateStructured } from "../model/structured.js";
import type { Logger } from "../platform/logger.js";
import { renderPrompt } from "../prompts/render.js";
import type { ScanBudget } from "../tools/scan-budget.js";
import type { ToolBox } from "../tools/toolbox.js";
import type { ExecutorContext } from "./contexts.js";
import { type FixedRound, runFixedStep } from "./fixed-step.js";
import { summarizeResults } from "./result-summary.js";
import type { ExecutorState, StepJournal } from "./step-journal.js";

export interface ExecutorInput {
  investigationId: string;
  finding: Finding;
  plan: Plan;
  step: Step;
  priorResults: readonly StepResult[];
  model: Model;
  toolbox: ToolBox;
  maxIterations: number;
  logger: Logger;
  now: () => Date;
  onToolCall?: (call: ToolCall) => void;
  /**
   * Tokens this step may spend (its share of the investigation's budget). Once a round
   * reaches it, the step stops without another model call and reports what the tools found.
   */
  tokenAllowance?: number;
  /**
   * Why the plan cancelled this step, if it did; asked before every model round, so a step
   * a reflection made moot while it ran stops instead of paying for more rounds.
   */
  cancelled?: () => Promise<string | undefined>;
  /**
   * Durable history: the loop resumes from it, saves every tool round to it, and stops
   * (throwing what `pressure` returns) when the context is full or nearly so.
   */
  journal?: StepJournal;
  /** People's decisions on this investigation's acting calls; the tool layer checks them. */
  approvals?: readonly Approval[];
  /**
   * The step's deadline. Once it fires the loop makes no further model or tool call, and the
   * tools it started stop at their next boundary (they get it as ToolContext.signal).
   */
  signal?: AbortSignal;
  /**
   * Tool calls run from one model turn; the rest are answered with a refusal the model can
   * read, so one turn cannot fan out into unbounded work (each log_analysis call is a whole
   * sub-agent session). Default: no cap.
   */
  maxToolCallsPerTurn?: number;
  /** The investigation's log-scan budget, handed to the tools. */
  scanBudget?: ScanBudget;
}

/** Tool output handed back to the model is capped; tools page their rows, this is the backstop. */
const MAX_TOOL_RESPONSE_BYTES = 24_000;
const MAX_RESULT_IOCS = 50;

/**
 * Runs one step as a tool-calling loop. The model only ever sees the tools of its step
 * that the toolbox allows; anything else it asks for is refused in code and reported
 * back as a failed call, never executed.
 */
export async function askStepExecutor(input: ExecutorInput): Promise<StepResult> {
  const resumed = await input.journal?.resume();
  // The plan already says what to call: no model round to choose the calls, and none to read
  // them when they answered. Empty or failed answers need judgment (widen? another source?),
  // so the model takes over with the planned round already in its history.
  let seeded: FixedRound | undefined;
  if (!resumed && input.step.calls?.length) {
    const fixed = await runFixedStep(input, input.step.calls);
    if (fixed.kind === "done") return fixed.result;
    seeded = fixed.round;
  }
  const startedAt = resumed?.startedAt ?? seeded?.startedAt ?? input.now().toISOString();
  const offered = input.toolbox.declarationsFor(input.step.tools);
  const priorResults = summarizeResults(input.plan, input.priorResults);
  const system = renderPrompt("executor.system", { maxIterations: input.maxIterations });
  const user = renderPrompt("executor.user", {
    objective: input.plan.objective,
    step: input.step,
    finding: input.finding,
    priorResults,
  });
  const messages: Message[] = resumed
    ? [...resumed.messages]
    : [
        { role: "user", text: user },
        ...(seeded
          ? [
              { role: "model", toolCalls: seeded.requests } satisfies Message,
              { role: "tool", responses: seeded.responses } satisfies Message,
            ]
          : []),
      ];
  const toolCalls: ToolCall[] = resumed ? [...resumed.toolCalls] : [...(seeded?.toolCalls ?? [])];
  const toolIocs: Ioc[] = resumed ? [...resumed.toolIocs] : [...(seeded?.toolIocs ?? [])];
  let usage: Usage = resumed?.usage ?? seeded?.usage ?? ZERO_USAGE;
  let completed = resumed?.iterations ?? (seeded ? 1 : 0);
  const state = (): ExecutorState => ({
    messages: [...messages],
    toolCalls: [...toolCalls],
    toolIocs: [...toolIocs],
    usage,
    iterations: completed,
    startedAt,
  });
  if (seeded) await input.journal?.save(state());
  // Every model request carries the step's deadline, so the provider call itself is aborted.
  const bound = input.signal ? withDeadline(input.model, input.signal) : input.model;
  const model = input.journal ? stopOnTokenLimit(bound, input.journal, state) : bound;
  input = { ...input, model };
  let modelName = input.model.name;

  const baseContext = (iteration: number, finalReportOnly: boolean): ExecutorContext => ({
    purpose: "executor",
    finding: input.finding,
    objective: input.plan.objective,
    step: input.step,
    priorResults,
    iteration,
    maxIterations: input.maxIterations,
    finalReportOnly,
  });
  const result = (report: StepReport, iterations: number, model: string, error?: string): StepResult =>
    buildResult(input, {
      report,
      toolCalls,
      toolIocs,
      usage,
      iterations,
      startedAt,
      modelName: model,
      ...(error ? { error } : {}),
    });
  const request = (iteration: number): GenerateRequest => ({
    purpose: "executor",
    system,
    messages: [...messages],
    tools: offered,
    context: baseContext(iteration, false),
    investigationId: input.investigationId,
  });

  const stopped = async (round: number): Promise<StepResult | undefined> => {
    const reason = await input.cancelled?.();
    if (reason === undefined) return undefined;
    return result(
      cancelledReport(toolCalls, reason, round),
      completed,
      modelName,
      `cancelled by the plan before model round ${round}: ${reason}`,
    );
  };

  for (let iteration = completed + 1; iteration <= input.maxIterations; iteration++) {
    const stop = await stopped(iteration);
    if (stop) return stop;
    input.signal?.throwIfAborted();
    const response = await input.model.generate(request(iteration));
    usage = addUsage(usage, response.usage);
    modelName = response.model;
    // An answer that arrives after the deadline is not acted on (its tools would run late).
    input.signal?.throwIfAborted();
    if (response.toolCalls.length === 0) {
      const report = await finalReport(input, system, messages, response.text, baseContext(iteration, true));
      usage = addUsage(usage, report.usage);
      return result(report.value, iteration, modelName);
    }
    messages.push({
      role: "model",
      ...(response.text ? { text: response.text } : {}),
      toolCalls: response.toolCalls,
    });
    const cap = input.maxToolCallsPerTurn ?? response.toolCalls.length;
    const admitted = response.toolCalls.slice(0, cap);
    const share = toolTokenShare(input.tokenAllowance, usage, admitted.length);
    const ran = await Promise.all(
      admitted.map((call) =>
        runToolCall(input, call, toolCalls, toolIocs, share, (spent) => {
          usage = addUsage(usage, spent);
        }),
      ),
    );
    // Refusals are recorded after the calls that ran, and answered in the turn's order.
    const responses = [
      ...ran,
      ...response.toolCalls.slice(cap).map((call) => refuseOverCap(input, call, cap, toolCalls)),
    ];
    // The deadline fired while the tools ran: nothing more is saved or asked for.
    input.signal?.throwIfAborted();
    messages.push({ role: "tool", responses });
    completed = iteration;
    await input.journal?.save(state());
    const spent = usage.inputTokens + usage.outputTokens;
    if (input.tokenAllowance !== undefined && spent >= input.tokenAllowance) {
      return result(
        allowanceReport(toolCalls, spent, input.tokenAllowance, iteration),
        iteration,
        modelName,
        `token allowance of ${input.tokenAllowance} reached (${spent} spent) before the step finished`,
      );
    }
    // The context size is the prompt counted once; usage may bill it several times (retries, hops).
    const context = response.promptTokens ?? response.usage.inputTokens;
    if (input.journal?.overBudget(context)) {
      throw await input.journal.pressure(state(), {
        reason: `the last request used ${context} input tokens, past the compression threshold`,
        inputTokens: context,
      });
    }
  }

  const stop = await stopped(input.maxIterations + 1);
  if (stop) return stop;
  input.signal?.throwIfAborted();
  // Not pushed onto `messages`: a saved history must not end with this request.
  const capReached: Message = {
    role: "user",
    text: `You have used all ${input.maxIterations} rounds of tool calls for this step. Do not call tools; report what you found so far as the final JSON object.`,
  };
  const forced = await generateStructured(
    input.model,
    {
      purpose: "executor",
      system,
      messages: [...messages, capReached],
      context: baseContext(input.maxIterations + 1, true),
      investigationId: input.investigationId,
    },
    StepReportSchema,
  );
  usage = addUsage(usage, forced.usage);
  return result(
    forced.value,
    input.maxIterations,
    forced.model,
    `iteration cap of ${input.maxIterations} reached before the step finished`,
  );
}

/**
 * The provider refused the request as too long: the rounds so far are saved, and the
 * loop stops with what the journal says (compress and re-run, or give up).
 */
function stopOnTokenLimit(model: Model, journal: StepJournal, state: () => ExecutorState): Model {
  return {
    // Getters: a fallback wrapper changes its name when it switches models.
    get name() {
      return model.name;
    },
    get offline() {
      return model.offline;
    },
    embed: (request) => model.embed(request),
    async generate(request) {
      try {
        return await model.generate(request);
      } catch (error) {
        if (!isTokenLimitError(error)) throw error;
        throw await journal.pressure(state(), { reason: errorMessage(error) });
      }
    },
  };
}

async function finalReport(
  input: ExecutorInput,
  system: string,
  messages: readonly Message[],
  text: string | undefined,
  context: ExecutorContext,
): Promise<{ value: StepReport; usage: Usage }> {
  const direct = parseReport(text);
  if (direct) return { value: direct, usage: ZERO_USAGE };
  // The answer broke the report format: one structured request (no tools) repairs it.
  const repaired = await generateStructured(
    input.model,
    {
      purpose: "executor",
      system,
      messages: [
        ...messages,
        { role: "model", text: text ?? "" },
        {
          role: "user",
          text: "Return your final report as the JSON object described in the instructions, and nothing else.",
        },
      ],
      context,
      investigationId: input.investigationId,
    },
    StepReportSchema,
  );
  return { value: repaired.value, usage: repaired.usage };
}

/**
 * The step's report when it ran out of tokens: written by code from the tool summaries, since
 * asking the model for one would spend past the allowance.
 */
function allowanceReport(
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
function cancelledReport(toolCalls: readonly ToolCall[], reason: string, round: number): StepReport {
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

function parseReport(text: string | undefined): StepReport | undefined {
  if (!text) return undefined;
  const trimmed = text
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/```$/, "")
    .trim();
  try {
    const parsed = StepReportSchema.safeParse(JSON.parse(trimmed));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

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
function refuseOverCap(
  input: ExecutorInput,
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
  input: ExecutorInput,
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
  calls.push(record);
  iocs.push(...(outcome.iocs ?? []));
  // A sub-agent's model calls count against this step, and so against the investigation's budget.
  if (outcome.usage) spend(outcome.usage);
  input.onToolCall?.(record);
  const response: JsonObject = { ok: outcome.ok, summary: outcome.summary, untrusted_data: data };
  return { id: call.id, name: call.name, response };
}

function boundData(data: JsonValue): JsonValue {
  if (jsonBytes(data) <= MAX_TOOL_RESPONSE_BYTES) return data;
  const text = JSON.stringify(data);
  return { truncated: true, preview: text.slice(0, MAX_TOOL_RESPONSE_BYTES - 200) };
}

export function buildResult(
  input: ExecutorInput,
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

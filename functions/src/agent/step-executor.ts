import { errorMessage } from "../domain/errors.js";
import type { Ioc } from "../domain/ioc.js";
import { type StepReport, StepReportSchema, type StepResult, type ToolCall } from "../domain/results.js";
import { withDeadline } from "../model/deadline.js";
import { isTokenLimitError } from "../model/errors.js";
import type { Message, Model } from "../model/port.js";
import { type RenderedPrompt, renderPrompt } from "../prompts/render.js";
import type { StepExecutorBrief } from "./briefs.js";
import { type FixedRound, runFixedStep } from "./fixed-step.js";
import { summarizeResults } from "./result-summary.js";
import { refuseOverCap, runToolCall, toolTokenShare } from "./step-calls.js";
import type { StepExecutorInput } from "./step-input.js";
import type { StepExecutorState, StepJournal } from "./step-journal.js";
import { allowanceReport, buildResult, cancelledReport } from "./step-result.js";
import { type StopCondition, ToolLoop, tokensSpent } from "./tool-loop.js";

/**
 * Runs one step as a tool-calling loop (agent/tool-loop.ts). The model only ever sees the
 * tools of its step that the toolbox allows; anything else it asks for is refused in code and
 * reported back as a failed call, never executed.
 */
export async function askStepExecutor(input: StepExecutorInput): Promise<StepResult> {
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
  const priorResults = summarizeResults(input.plan, input.priorResults);
  const brief = (round: number, finalReportOnly: boolean): StepExecutorBrief => ({
    role: "executor",
    finding: input.finding,
    objective: input.plan.objective,
    step: input.step,
    priorResults,
    iteration: round,
    maxIterations: input.maxIterations,
    finalReportOnly,
  });
  const prompt = stepExecutorPrompt(brief(1, false));
  const messages: Message[] = resumed
    ? [...resumed.messages]
    : [
        { role: "user", text: prompt.user },
        ...(seeded
          ? [
              { role: "model", toolCalls: seeded.requests } satisfies Message,
              { role: "tool", responses: seeded.responses } satisfies Message,
            ]
          : []),
      ];
  const toolCalls: ToolCall[] = resumed ? [...resumed.toolCalls] : [...(seeded?.toolCalls ?? [])];
  const toolIocs: Ioc[] = resumed ? [...resumed.toolIocs] : [...(seeded?.toolIocs ?? [])];
  const state = (): StepExecutorState => ({
    messages: [...messages],
    toolCalls: [...toolCalls],
    toolIocs: [...toolIocs],
    usage: loop.state.usage,
    iterations: loop.state.rounds,
    startedAt,
  });
  // Every model request carries the step's deadline, so the provider call itself is aborted.
  const bound = input.signal ? withDeadline(input.model, input.signal) : input.model;
  const model = input.journal ? stopOnTokenLimit(bound, input.journal, state) : bound;
  const step: StepExecutorInput = { ...input, model };
  /** Stops are written by code from what the tools found: asking the model would spend more. */
  type Stop = { report: StepReport; iterations: number; error: string };
  const cancelled: StopCondition<Stop> = async (now, round) => {
    const reason = await input.cancelled?.();
    if (reason === undefined) return undefined;
    return {
      report: cancelledReport(toolCalls, reason, round),
      iterations: now.rounds,
      error: `cancelled by the plan before model round ${round}: ${reason}`,
    };
  };
  const allowance: StopCondition<Stop> = (now, round) => {
    const spent = tokensSpent(now.usage);
    if (input.tokenAllowance === undefined || spent < input.tokenAllowance) return undefined;
    return {
      report: allowanceReport(toolCalls, spent, input.tokenAllowance, round),
      iterations: round,
      error: `token allowance of ${input.tokenAllowance} reached (${spent} spent) before the step finished`,
    };
  };
  const contextPressure: StopCondition<Stop> = async (now) => {
    // The context size is the prompt counted once; usage may bill it several times (retries, hops).
    const size = now.last?.promptTokens ?? now.last?.usage.inputTokens ?? 0;
    if (!input.journal?.overBudget(size)) return undefined;
    throw await input.journal.pressure(state(), {
      reason: `the last request used ${size} input tokens, past the compression threshold`,
      inputTokens: size,
    });
  };

  const loop: ToolLoop<StepReport, Stop> = new ToolLoop<StepReport, Stop>({
    model,
    messages,
    tools: input.toolbox.declarationsFor(input.step.tools),
    request: (round, answerOnly) => ({
      brief: brief(round, answerOnly),
      system: prompt.system,
      investigationId: input.investigationId,
    }),
    maxRounds: input.maxIterations,
    completedRounds: resumed?.iterations ?? (seeded ? 1 : 0),
    ...(resumed || seeded ? { usage: resumed?.usage ?? seeded?.usage } : {}),
    ...(input.maxToolCallsPerTurn !== undefined ? { maxToolCallsPerTurn: input.maxToolCallsPerTurn } : {}),
    ...(input.signal ? { deadline: input.signal } : {}),
    runCalls: (calls, turn) => {
      const share = toolTokenShare(input.tokenAllowance, turn.usage, calls.length);
      return Promise.all(
        calls.map((call) => runToolCall(step, call, toolCalls, toolIocs, share, turn.spend)),
      );
    },
    refuseCall: (call, refusal) => refuseOverCap(step, call, refusal.cap, toolCalls),
    onRound: () => input.journal?.save(state()),
    stopWhen: {
      beforeRound: [cancelled],
      afterRound: [allowance, contextPressure],
      beforeAnswerNow: [cancelled],
    },
    done: {
      parse: parseReport,
      unparsed: "repair",
      repairNudge:
        "Return your final report as the JSON object described in the instructions, and nothing else.",
    },
    answerNow: {
      schema: StepReportSchema,
      nudge: () =>
        `You have used all ${input.maxIterations} rounds of tool calls for this step. Do not call tools; report what you found so far as the final JSON object.`,
    },
  });
  if (seeded) await input.journal?.save(state());

  const end = await loop.run();
  const result = (report: StepReport, iterations: number, model: string, error?: string): StepResult =>
    buildResult(step, {
      report,
      toolCalls,
      toolIocs,
      usage: loop.state.usage,
      iterations,
      startedAt,
      modelName: model,
      ...(error ? { error } : {}),
    });
  switch (end.kind) {
    case "answered":
      return result(end.answer, end.round, end.roundModel);
    case "stopped":
      return result(end.stop.report, end.stop.iterations, loop.state.model, end.stop.error);
    case "answered-now":
      return result(
        end.answer,
        input.maxIterations,
        loop.state.model,
        `iteration cap of ${input.maxIterations} reached before the step finished`,
      );
  }
}

/**
 * The provider refused the request as too long: the rounds so far are saved, and the
 * loop stops with what the journal says (compress and re-run, or give up).
 */
function stopOnTokenLimit(model: Model, journal: StepJournal, state: () => StepExecutorState): Model {
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

/** The step executor's prompt, rendered from its brief alone (the loop's position is not shown). */
export function stepExecutorPrompt(brief: StepExecutorBrief): RenderedPrompt {
  return {
    system: renderPrompt("executor.system", { maxIterations: brief.maxIterations }),
    user: renderPrompt("executor.user", {
      objective: brief.objective,
      step: brief.step,
      finding: brief.finding,
      priorResults: brief.priorResults,
    }),
  };
}

import type { LogAnalystBrief } from "../agent/briefs.js";
import { type StopCondition, ToolLoop, tokensSpent } from "../agent/tool-loop.js";
import { errorMessage } from "../domain/errors.js";
import { type JsonObject, type JsonValue, jsonBytes } from "../domain/json.js";
import type { LogAnalystSession } from "../domain/log-analyst-session.js";
import { chooseModel } from "../model/choice.js";
import type { Message, Model, ToolCallRequest, ToolResponse } from "../model/port.js";
import type { TableInfo } from "../ports/log-warehouse.js";
import type { ToolContext } from "../tools/port.js";
import type { ToolRegistry } from "../tools/registry.js";
import { type AnswerEnvelope, fallbackAnswer, parseAnswer } from "./answer.js";
import {
  type LogAnalystAnswer,
  LogAnalystAnswerSchema,
  type LogAnalystRequest,
  type PublishSession,
  type RecalledMemory,
  RecalledMemorySchema,
  type RecallMemories,
} from "./contract.js";
import { type AnalystToolDeps, createAnalystTools } from "./internal-tools.js";
import { logAnalystPrompt } from "./prompt.js";
import { buildSession, sessionIdFor } from "./session.js";
import { SessionState } from "./session-state.js";
import { ROW_TOOLS } from "./tool-names.js";
import { sessionWindow, type WindowHours } from "./window.js";

/** The seed's cap: enough rounds for a runbook, a schema check, a retry and some paging. */
export const DEFAULT_MAX_ITERATIONS = 16;
/** The architecture's cap on memories put into one prompt. */
export const MAX_RECALLED = 32;
/** Tool output handed back to the sub-model; the pages are bounded already, this is the backstop. */
const MAX_TOOL_RESPONSE_BYTES = 24_000;

export interface AnalystSettings extends AnalystToolDeps {
  /** The tables the prompt describes; listed once when the tool is built, not per session. */
  tables: readonly Pick<TableInfo, "name" | "description">[];
  model: Model;
  fallbackModel?: Model;
  recall: RecallMemories;
  publishSession: PublishSession;
  maxIterations: number;
  windowHours: WindowHours;
  maxTranscriptBytes?: number;
  now: () => Date;
}

/** Who is asking: the tool context, plus the step and call ids when the step executor supplies them. */
export interface AnalystCall {
  input: LogAnalystRequest;
  ctx: ToolContext;
  stepId?: string;
  toolCallId?: string;
}

export interface AnalystRun extends AnswerEnvelope {
  session: LogAnalystSession;
  recalled: RecalledMemory[];
}

async function recallSafely(settings: AnalystSettings, call: AnalystCall): Promise<RecalledMemory[]> {
  try {
    const found = await settings.recall(call.input.request);
    // Memories arrive from storage: keep the well-formed ones, never more than the prompt cap.
    return found
      .flatMap((m) => {
        const parsed = RecalledMemorySchema.safeParse(m);
        return parsed.success ? [parsed.data] : [];
      })
      .slice(0, MAX_RECALLED);
  } catch (error) {
    call.ctx.logger.warn("memory recall failed; the log analyst runs without memories", {
      error: errorMessage(error),
    });
    return [];
  }
}

function boundData(data: JsonValue): JsonValue {
  if (jsonBytes(data) <= MAX_TOOL_RESPONSE_BYTES) return data;
  return { truncated: true, preview: JSON.stringify(data).slice(0, MAX_TOOL_RESPONSE_BYTES - 200) };
}

async function runCall(
  tools: ToolRegistry,
  state: SessionState,
  call: ToolCallRequest,
  ctx: ToolContext,
): Promise<ToolResponse> {
  const output = await tools.run(call.name, call.args, {
    ...ctx,
    logger: ctx.logger.child({ subagent: "log_analyst", tool: call.name }),
  });
  if (ROW_TOOLS.includes(call.name))
    state.record(
      { tool: call.name, args: call.args, ok: output.ok, summary: output.summary, data: output.data },
      output.iocs,
    );
  const response: JsonObject = {
    ok: output.ok,
    summary: output.summary,
    untrusted_data: boundData(output.data),
  };
  return { id: call.id, name: call.name, response };
}

/**
 * One log-analysis session: recall memories, then a tool-calling loop over the analyst's
 * own tools (agent/tool-loop.ts; at most `maxIterations` rounds), then a bounded answer. The session record is
 * handed to `publishSession` for the memory pipeline; a failure there never fails the answer.
 */
export async function runLogAnalyst(settings: AnalystSettings, call: AnalystCall): Promise<AnalystRun> {
  const { ctx, input } = call;
  const startedAt = settings.now().toISOString();
  const { window, source } = sessionWindow(ctx.finding.eventTime, input.timeWindow, settings.windowHours);
  const recalled = await recallSafely(settings, call);
  const state = new SessionState(window);
  const tools = createAnalystTools(settings, state);
  const declarations = tools.declarations();
  const { tables } = settings;
  const runbooks = settings.runbooks.list().map((r) => ({
    name: r.name,
    params: r.params.map((p) => p.name).join(", "),
    description: r.description,
  }));
  const brief = (iteration: number, finalAnswerOnly: boolean): LogAnalystBrief => ({
    role: "log_analyst",
    finding: ctx.finding,
    request: input.request,
    ...(input.focus ? { focus: input.focus } : {}),
    window,
    windowSource: source,
    dialect: settings.warehouse.dialect,
    tables: tables.map(({ name, description }) => ({ name, description })),
    runbooks,
    memories: recalled.map(({ id, fact }) => ({ id, fact })),
    iteration,
    maxIterations: settings.maxIterations,
    finalAnswerOnly,
  });
  const prompt = logAnalystPrompt(brief(1, false));
  const messages: Message[] = [{ role: "user", text: prompt.user }];
  const { model } = chooseModel(
    {
      primary: settings.model,
      ...(settings.fallbackModel ? { offline: settings.fallbackModel } : {}),
      fallbackToOffline: settings.fallbackModel !== undefined,
    },
    { fellBackToOffline: ctx.offlineOnly === true },
  );
  // A stop ends the session without another model call; its answer is written from the record.
  const cancelled: StopCondition<string> = () =>
    ctx.signal?.aborted ? "Stopped early: the calling step was cancelled." : undefined;
  const tokenShare: StopCondition<string> = (now) => {
    const spent = tokensSpent(now.usage);
    if (ctx.tokenAllowance === undefined || spent < ctx.tokenAllowance) return undefined;
    return `Stopped at its token share (${spent} of ${ctx.tokenAllowance} tokens) after ${now.rounds} round(s), before a final answer; this answer is partial.`;
  };
  const loop = new ToolLoop<LogAnalystAnswer, string>({
    model,
    messages,
    tools: declarations,
    request: (iteration, finalAnswerOnly) => ({
      brief: brief(iteration, finalAnswerOnly),
      system: prompt.system,
      investigationId: ctx.investigationId,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    }),
    maxRounds: settings.maxIterations,
    runCalls: (calls) => Promise.all(calls.map((c) => runCall(tools, state, c, ctx))),
    stopWhen: { beforeRound: [cancelled, tokenShare] },
    done: {
      parse: parseAnswer,
      unparsed: "repair",
      repairNudge:
        "Return your final answer as the JSON object described in the instructions, and nothing else.",
    },
    answerNow: {
      schema: LogAnalystAnswerSchema,
      nudge: () =>
        `You have used all ${settings.maxIterations} rounds of tool calls. Do not call tools; give your final answer now from what you found, and say what is still open.`,
      // A model that still cannot answer leaves the record's answer.
      unanswerable: (why) =>
        fallbackAnswer(
          state,
          why === "unparsed"
            ? "The analyst's final answer did not follow the answer format."
            : `The analysis stopped at its iteration cap of ${settings.maxIterations} rounds without a final answer.`,
        ),
    },
  });
  const end = await loop.run();

  let answer: LogAnalystAnswer;
  let iterations: number;
  let stopped: string | undefined;
  switch (end.kind) {
    case "answered":
      answer = end.answer;
      iterations = end.round;
      messages.push({ role: "model", text: end.text ?? "" });
      break;
    case "stopped":
      stopped = end.stop;
      answer = fallbackAnswer(state, stopped);
      iterations = loop.state.rounds;
      break;
    case "answered-now":
      iterations = end.round;
      messages.push(end.nudge);
      answer = {
        ...end.answer,
        openQuestions: [
          `The analysis hit its cap of ${settings.maxIterations} rounds of tool calls before it finished.`,
          ...(end.answer.openQuestions ?? []),
        ].slice(0, 5),
      };
      break;
  }
  const capReached = end.kind === "answered-now";
  const { usage, model: modelName } = loop.state;

  const sessionId = sessionIdFor({
    investigationId: ctx.investigationId,
    ...(call.stepId ? { stepId: call.stepId } : {}),
    ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}),
    input,
    window,
  });
  const session = buildSession({
    sessionId,
    investigationId: ctx.investigationId,
    ...(call.stepId ? { stepId: call.stepId } : {}),
    request: input.request,
    recalledMemoryIds: recalled.map((m) => m.id),
    messages,
    answer,
    model: modelName,
    startedAt,
    finishedAt: settings.now().toISOString(),
    ...(settings.maxTranscriptBytes ? { maxTranscriptBytes: settings.maxTranscriptBytes } : {}),
  });
  try {
    await settings.publishSession(session);
  } catch (error) {
    // The memory pipeline learns from sessions; the investigation does not depend on it.
    ctx.logger.warn("log-analysis session could not be published", { sessionId, error: errorMessage(error) });
  }
  return {
    answer,
    state,
    iterations,
    maxIterations: settings.maxIterations,
    capReached,
    ...(stopped ? { stopped } : {}),
    recalledMemoryIds: recalled.map((m) => m.id),
    sessionId,
    model: modelName,
    usage,
    session,
    recalled,
  };
}

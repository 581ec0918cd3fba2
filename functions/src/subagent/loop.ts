import type { LogAnalystContext } from "../agent/contexts.js";
import type { AgentSession } from "../domain/agent-session.js";
import { errorMessage, ModelOutputError } from "../domain/errors.js";
import { type JsonObject, type JsonValue, jsonBytes } from "../domain/json.js";
import { addUsage, type Usage, ZERO_USAGE } from "../domain/results.js";
import { chooseModel } from "../model/choice.js";
import type { GenerateRequest, Message, Model, ToolCallRequest, ToolResponse } from "../model/port.js";
import { generateStructured } from "../model/structured.js";
import type { TableInfo } from "../ports/log-warehouse.js";
import type { ToolContext } from "../tools/port.js";
import type { ToolRegistry } from "../tools/registry.js";
import { type AnswerEnvelope, fallbackAnswer, parseAnswer } from "./answer.js";
import {
  type LogAnalysisInput,
  type LogAnalystAnswer,
  LogAnalystAnswerSchema,
  type PublishSession,
  type RecalledMemory,
  RecalledMemorySchema,
  type RecallMemories,
} from "./contract.js";
import { type AnalystToolDeps, createAnalystTools } from "./internal-tools.js";
import { analystSystemPrompt, analystUserPrompt } from "./prompt.js";
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

/** Who is asking: the tool context, plus the step and call ids when the executor supplies them. */
export interface AnalystCall {
  input: LogAnalysisInput;
  ctx: ToolContext;
  stepId?: string;
  toolCallId?: string;
}

export interface AnalystRun extends AnswerEnvelope {
  session: AgentSession;
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
 * own tools (at most `maxIterations` rounds), then a bounded answer. The session record is
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
  const system = analystSystemPrompt({
    dialect: settings.warehouse.dialect,
    tables,
    runbooks: settings.runbooks,
    maxIterations: settings.maxIterations,
  });
  const user = analystUserPrompt({
    input,
    window,
    windowSource: source,
    finding: ctx.finding,
    memories: recalled,
  });
  const messages: Message[] = [{ role: "user", text: user }];
  const { model } = chooseModel(
    {
      primary: settings.model,
      ...(settings.fallbackModel ? { offline: settings.fallbackModel } : {}),
      fallbackToOffline: settings.fallbackModel !== undefined,
    },
    { fellBackToOffline: ctx.offlineOnly === true },
  );
  let usage: Usage = ZERO_USAGE;
  let modelName = model.name;

  const context = (iteration: number, finalAnswerOnly: boolean): LogAnalystContext => ({
    purpose: "log_analyst",
    finding: ctx.finding,
    request: input.request,
    ...(input.focus ? { focus: input.focus } : {}),
    window,
    windowSource: source,
    tables: tables.map((t) => t.name),
    runbooks: settings.runbooks.names(),
    memories: recalled,
    iteration,
    maxIterations: settings.maxIterations,
    finalAnswerOnly,
  });
  const base = (iteration: number, finalAnswerOnly: boolean): GenerateRequest => ({
    purpose: "log_analyst",
    system,
    messages: [...messages],
    context: context(iteration, finalAnswerOnly),
    investigationId: ctx.investigationId,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  /** One structured request without tools; a model that still cannot answer leaves the record's answer. */
  const forceAnswer = async (extra: Message[], iteration: number, why: string): Promise<LogAnalystAnswer> => {
    try {
      const forced = await generateStructured(
        model,
        { ...base(iteration, true), messages: [...messages, ...extra] },
        LogAnalystAnswerSchema,
      );
      usage = addUsage(usage, forced.usage);
      modelName = forced.model;
      return forced.value;
    } catch (error) {
      if (!(error instanceof ModelOutputError)) throw error;
      return fallbackAnswer(state, why);
    }
  };

  let answer: LogAnalystAnswer | undefined;
  let iterations = 0;
  let stopped: string | undefined;
  for (let iteration = 1; iteration <= settings.maxIterations && !answer; iteration++) {
    if (ctx.signal?.aborted) {
      stopped = "Stopped early: the calling step was cancelled.";
      break;
    }
    const spent = usage.inputTokens + usage.outputTokens;
    if (ctx.tokenAllowance !== undefined && spent >= ctx.tokenAllowance) {
      stopped = `Stopped at its token share (${spent} of ${ctx.tokenAllowance} tokens) after ${iterations} round(s), before a final answer; this answer is partial.`;
      break;
    }
    const response = await model.generate({ ...base(iteration, false), tools: declarations });
    usage = addUsage(usage, response.usage);
    modelName = response.model;
    iterations = iteration;
    if (response.toolCalls.length === 0) {
      answer =
        parseAnswer(response.text) ??
        (await forceAnswer(
          [
            { role: "model", text: response.text ?? "" },
            {
              role: "user",
              text: "Return your final answer as the JSON object described in the instructions, and nothing else.",
            },
          ],
          iteration,
          "The analyst's final answer did not follow the answer format.",
        ));
      messages.push({ role: "model", text: response.text ?? "" });
      break;
    }
    messages.push({
      role: "model",
      ...(response.text ? { text: response.text } : {}),
      toolCalls: response.toolCalls,
    });
    const responses = await Promise.all(response.toolCalls.map((c) => runCall(tools, state, c, ctx)));
    messages.push({ role: "tool", responses });
  }

  const capReached = !answer && !stopped;
  if (!answer && stopped) answer = fallbackAnswer(state, stopped);
  if (!answer) {
    const capMessage: Message = {
      role: "user",
      text: `You have used all ${settings.maxIterations} rounds of tool calls. Do not call tools; give your final answer now from what you found, and say what is still open.`,
    };
    answer = await forceAnswer(
      [capMessage],
      settings.maxIterations + 1,
      `The analysis stopped at its iteration cap of ${settings.maxIterations} rounds without a final answer.`,
    );
    messages.push(capMessage);
    if (capReached)
      answer = {
        ...answer,
        openQuestions: [
          `The analysis hit its cap of ${settings.maxIterations} rounds of tool calls before it finished.`,
          ...(answer.openQuestions ?? []),
        ].slice(0, 5),
      };
  }

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

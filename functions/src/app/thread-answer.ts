import type { ThreadAnswerBrief } from "../agent/briefs.js";
import { ToolLoop } from "../agent/tool-loop.js";
import type { Investigation } from "../domain/investigation.js";
import { type JsonObject, jsonBytes } from "../domain/json.js";
import type { Usage } from "../domain/results.js";
import {
  type EvidenceItem,
  groundedCitations,
  type ThreadAnswer,
  ThreadAnswerSchema,
} from "../domain/thread-question.js";
import type { Message, Model, ToolCallRequest, ToolResponse } from "../model/port.js";
import type { Logger } from "../platform/logger.js";
import { type RenderedPrompt, renderPrompt } from "../prompts/render.js";
import type { ToolBox } from "../tools/toolbox.js";

export interface ThreadAnswerInput {
  question: string;
  investigation: Investigation;
  evidence: readonly EvidenceItem[];
  model: Model;
  toolbox: ToolBox;
  /** slack.questionTools: the toolbox still applies tools.allow/deny on top. */
  tools: readonly string[];
  maxToolCalls: number;
  logger: Logger;
  signal?: AbortSignal;
}

export interface AskedCall {
  name: string;
  ok: boolean;
  summary: string;
}

export interface ThreadAnswerOutcome {
  answer: string;
  /** Refs of evidence that exists (stored or asked now); made-up refs are dropped. */
  citations: string[];
  /** Stored evidence plus what the tools called for this answer returned. */
  evidence: EvidenceItem[];
  calls: AskedCall[];
  usage: Usage;
  model: string;
}

/** Tool output handed back to the model is capped; the summary always goes, the data when it fits. */
const MAX_TOOL_DATA_BYTES = 12_000;

/**
 * Answers an analyst's question from an investigation's stored evidence, with at most
 * `maxToolCalls` calls of read-only tools. The tools go through the toolbox, so a tool that
 * is not offered, not registered or denied by configuration is refused in code and never
 * runs, whatever the question or the model asks for. Nothing here writes to the
 * investigation: an answer cannot change a verdict.
 */
export async function answerThreadQuestion(input: ThreadAnswerInput): Promise<ThreadAnswerOutcome> {
  const offered = input.maxToolCalls > 0 ? input.toolbox.declarationsFor(input.tools) : [];
  const offeredNames = offered.map((d) => d.name);
  const evidence: EvidenceItem[] = [...input.evidence];
  const calls: AskedCall[] = [];
  const budget = offered.length > 0 ? input.maxToolCalls : 0;
  const brief = (finalAnswerOnly: boolean, toolCalls: number): ThreadAnswerBrief => ({
    role: "thread_answer",
    question: input.question,
    investigationId: input.investigation.id,
    status: input.investigation.status,
    evidence: [...evidence],
    tools: offeredNames,
    maxToolCalls: budget,
    toolCallsLeft: budget - toolCalls,
    finalAnswerOnly,
  });
  const prompt = threadAnswerPrompt(brief(false, 0));
  const messages: Message[] = [{ role: "user", text: prompt.user }];
  const runCall = async (call: ToolCallRequest): Promise<ToolResponse> => {
    const out = await input.toolbox.run(call.name, call.args, input.tools, {
      investigationId: input.investigation.id,
      finding: input.investigation.finding,
      logger: input.logger,
      toolCallId: call.id,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    calls.push({ name: call.name, ok: out.ok, summary: out.summary });
    if (out.ok) {
      evidence.push({
        ref: `asked:${calls.length}`,
        kind: "asked",
        title: `${call.name}, called for this answer`,
        text: out.summary,
        iocs: [...argumentIndicators(call.args), ...(out.iocs ?? []).map((i) => i.value)],
      });
    }
    const data: JsonObject =
      jsonBytes(out.data) <= MAX_TOOL_DATA_BYTES ? { data: out.data } : { data_omitted: true };
    return {
      id: call.id,
      name: call.name,
      response: { ok: out.ok, summary: out.summary, ref: out.ok ? `asked:${calls.length}` : null, ...data },
    };
  };

  const loop = new ToolLoop<ThreadAnswer, never>({
    model: input.model,
    messages,
    tools: offered,
    request: (_round, finalAnswerOnly, state) => ({
      brief: brief(finalAnswerOnly, state.toolCalls),
      system: prompt.system,
      investigationId: input.investigation.id,
      ...(input.signal ? { signal: input.signal } : {}),
    }),
    // Every round runs at least one call, so the call budget ends the loop first.
    maxRounds: budget,
    maxToolCalls: budget,
    runCalls: async (admitted) => {
      // One at a time: each call's evidence ref is its place in `calls`.
      const responses: ToolResponse[] = [];
      for (const call of admitted) responses.push(await runCall(call));
      return responses;
    },
    refuseCall: (call) => ({
      id: call.id,
      name: call.name,
      response: { ok: false, summary: "refused: this answer's tool-call budget is spent" },
    }),
    // An answer in the wrong format gets the same last turn as a spent budget.
    done: { parse: parseAnswer, unparsed: "answer-now" },
    answerNow: { schema: ThreadAnswerSchema, nudge: () => "Answer now with the JSON object only." },
  });
  const end = await loop.run();
  const model = end.kind === "answered" ? end.roundModel : loop.state.model;
  return outcome(end.answer, evidence, calls, loop.state.usage, model);
}

function parseAnswer(text: string | undefined): { answer: string; citations: string[] } | undefined {
  if (!text) return undefined;
  try {
    const parsed = ThreadAnswerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function outcome(
  answer: { answer: string; citations: string[] },
  evidence: EvidenceItem[],
  calls: AskedCall[],
  usage: Usage,
  model: string,
): ThreadAnswerOutcome {
  return {
    answer: answer.answer,
    citations: groundedCitations(answer.citations, evidence),
    evidence,
    calls,
    usage,
    model,
  };
}

/** The indicators a lookup was asked about, so its result matches them as evidence. */
function argumentIndicators(args: JsonObject): string[] {
  const list = args.indicators;
  if (!Array.isArray(list)) return [];
  return list.flatMap((i) =>
    i && typeof i === "object" && !Array.isArray(i) && typeof i.value === "string" ? [i.value] : [],
  );
}

/** The thread answer's prompt, rendered from its brief alone (evidence as it stood before any call). */
export function threadAnswerPrompt(brief: ThreadAnswerBrief): RenderedPrompt {
  return {
    system: renderPrompt("thread-answer.system", { maxToolCalls: brief.maxToolCalls }),
    user: renderPrompt("thread-answer.user", {
      question: brief.question,
      investigationId: brief.investigationId,
      status: brief.status,
      evidence: brief.evidence.map(({ ref, title, text, iocs }) => ({ ref, title, text, iocs })),
    }),
  };
}

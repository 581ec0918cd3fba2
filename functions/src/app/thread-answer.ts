import type { Investigation } from "../domain/investigation.js";
import { type JsonObject, jsonBytes } from "../domain/json.js";
import { addUsage, type Usage, ZERO_USAGE } from "../domain/results.js";
import {
  type EvidenceItem,
  groundedCitations,
  type ThreadAnswerContext,
  ThreadAnswerSchema,
} from "../domain/thread-question.js";
import type { GenerateRequest, Message, Model, ToolResponse } from "../model/port.js";
import { generateStructured } from "../model/structured.js";
import type { Logger } from "../platform/logger.js";
import { renderPrompt } from "../prompts/render.js";
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
  const system = renderPrompt("thread-answer.system", {
    maxToolCalls: offered.length > 0 ? input.maxToolCalls : 0,
  });
  const user = renderPrompt("thread-answer.user", {
    question: input.question,
    investigationId: input.investigation.id,
    status: input.investigation.status,
    evidence: input.evidence.map(({ ref, title, text, iocs }) => ({ ref, title, text, iocs })),
  });
  const evidence: EvidenceItem[] = [...input.evidence];
  const messages: Message[] = [{ role: "user", text: user }];
  const calls: AskedCall[] = [];
  let left = offered.length > 0 ? input.maxToolCalls : 0;
  let usage: Usage = ZERO_USAGE;
  const context = (finalAnswerOnly: boolean): ThreadAnswerContext => ({
    purpose: "thread_answer",
    question: input.question,
    evidence: [...evidence],
    tools: offeredNames,
    toolCallsLeft: left,
    finalAnswerOnly,
  });
  const base = (finalAnswerOnly: boolean): GenerateRequest => ({
    purpose: "thread_answer",
    system,
    messages: [...messages],
    context: context(finalAnswerOnly),
    investigationId: input.investigation.id,
    ...(input.signal ? { signal: input.signal } : {}),
  });

  while (left > 0) {
    const response = await input.model.generate({ ...base(false), tools: offered });
    usage = addUsage(usage, response.usage);
    if (response.toolCalls.length === 0) {
      const direct = parseAnswer(response.text);
      if (direct) return outcome(direct, evidence, calls, usage, response.model);
      break;
    }
    messages.push({
      role: "model",
      ...(response.text ? { text: response.text } : {}),
      toolCalls: response.toolCalls,
    });
    const responses: ToolResponse[] = [];
    for (const call of response.toolCalls) {
      if (left <= 0) {
        responses.push({
          id: call.id,
          name: call.name,
          response: { ok: false, summary: "refused: this answer's tool-call budget is spent" },
        });
        continue;
      }
      left -= 1;
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
      responses.push({
        id: call.id,
        name: call.name,
        response: { ok: out.ok, summary: out.summary, ref: out.ok ? `asked:${calls.length}` : null, ...data },
      });
    }
    messages.push({ role: "tool", responses });
  }

  const final = await generateStructured(
    input.model,
    {
      ...base(true),
      messages: [...messages, { role: "user", text: "Answer now with the JSON object only." }],
    },
    ThreadAnswerSchema,
  );
  usage = addUsage(usage, final.usage);
  return outcome(final.value, evidence, calls, usage, final.model);
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

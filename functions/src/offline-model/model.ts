import { ModelOutputError } from "../domain/errors.js";
import { OFFLINE_MODEL_NAME } from "../model/brain.js";
import { hashEmbedding } from "../model/hash-embedding.js";
import type {
  EmbedRequest,
  GenerateRequest,
  GenerateResponse,
  Model,
  ToolCallRequest,
} from "../model/port.js";
import { isRepairRequest } from "../model/structured.js";
import { conclusionFor } from "./concluder/index.js";
import { introspectionFor } from "./introspector.js";
import { logAnalystAnswer } from "./log-analyst/index.js";
import { planFor } from "./planner.js";
import { reflectionFor } from "./reflector.js";
import { stepExecutorAnswer } from "./step-executor/index.js";
import { threadAnswerFor } from "./thread-answer.js";

export interface OfflineModelOptions {
  /** Recorded on results; defaults to "offline-playbook". */
  name?: string;
}

type Answer = { text: string } | { toolCalls: ToolCallRequest[] };

/**
 * The deterministic model: every answer is derived by rules from request.brief (the typed
 * facts the prompt was rendered from) and the tool responses in the messages.
 * The prompt text itself is never read, so nothing in it can steer the answer.
 */
export class OfflinePlaybookModel implements Model {
  readonly name: string;
  readonly offline = true;

  constructor(options: OfflineModelOptions = {}) {
    this.name = options.name ?? OFFLINE_MODEL_NAME;
  }

  async generate(request: GenerateRequest): Promise<GenerateResponse> {
    // Like an HTTP call on an aborted signal: an abandoned step gets no answer.
    request.signal?.throwIfAborted();
    const answer = this.answer(request);
    const text = "text" in answer ? answer.text : undefined;
    const toolCalls = "toolCalls" in answer ? answer.toolCalls : [];
    return {
      ...(text !== undefined ? { text } : {}),
      toolCalls,
      // One call of the Model port, and no tokens: no LLM read or wrote anything, so there is
      // nothing to bill, to count against the model budgets or to show as spend (issue 29).
      usage: { llmCalls: 1, inputTokens: 0, outputTokens: 0 },
      model: this.name,
      finishReason: "STOP",
    };
  }

  async embed(request: EmbedRequest): Promise<number[][]> {
    request.signal?.throwIfAborted();
    return request.texts.map((text) => hashEmbedding(text, request.dimensions));
  }

  /** A repair request carries the original brief, so it gets the same (valid) answer again. */
  private answer(request: GenerateRequest): Answer {
    const { brief } = request;
    // A repair or a schema-bound request wants the answer, never another tool round.
    const answerOnly = isRepairRequest(request) || request.responseSchema !== undefined;
    switch (brief.role) {
      case "planner":
        return json(planFor(brief));
      case "reflector":
        return json(reflectionFor(brief));
      case "concluder":
        return json(conclusionFor(brief));
      case "introspector":
        return json(introspectionFor(brief));
      case "thread_answer": {
        const step = threadAnswerFor({ ...brief, finalAnswerOnly: brief.finalAnswerOnly || answerOnly });
        return step.kind === "calls" ? { toolCalls: step.calls } : json(step.answer);
      }
      case "log_analyst": {
        const result = logAnalystAnswer({
          brief,
          messages: request.messages,
          tools: request.tools,
          reportOnly: answerOnly || !request.tools?.length,
        });
        return result.kind === "calls" ? { toolCalls: result.calls } : json(result.answer);
      }
      case "executor": {
        const result = stepExecutorAnswer({
          brief,
          messages: request.messages,
          tools: request.tools,
          reportOnly: answerOnly || !request.tools?.length,
        });
        return result.kind === "calls" ? { toolCalls: result.calls } : json(result.report);
      }
      case "compressor":
        // Summaries are prose; the compressor writes its rule summary itself and never asks this model.
        throw new ModelOutputError(`${this.name} writes no summaries: the compressor's own rules do`, {
          role: brief.role,
        });
    }
  }
}

function json(value: unknown): { text: string } {
  return { text: JSON.stringify(value) };
}

export function createOfflineModel(options: OfflineModelOptions = {}): OfflinePlaybookModel {
  return new OfflinePlaybookModel(options);
}

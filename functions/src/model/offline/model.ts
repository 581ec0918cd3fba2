import { isContext } from "../../agent/contexts.js";
import { ModelOutputError } from "../../domain/errors.js";
import { isThreadAnswerContext } from "../../domain/thread-question.js";
import { isIntrospectorContext } from "../../memory/introspection.js";
import { hashEmbedding } from "../hash-embedding.js";
import type { EmbedRequest, GenerateRequest, GenerateResponse, Model, ToolCallRequest } from "../port.js";
import { isRepairRequest } from "../structured.js";
import { conclusionFor } from "./concluder/index.js";
import { introspectionFor } from "./introspector.js";
import { logAnalystAnswer } from "./log-analyst/index.js";
import { planFor } from "./planner.js";
import { OFFLINE_MODEL_NAME } from "./provenance.js";
import { reflectionFor } from "./reflector.js";
import { stepExecutorAnswer } from "./step-executor/index.js";
import { threadAnswerFor } from "./thread-answer.js";

export interface OfflineModelOptions {
  /** Recorded on results; defaults to "offline-playbook". */
  name?: string;
}

type Answer = { text: string } | { toolCalls: ToolCallRequest[] };

/**
 * The deterministic model: every answer is derived by rules from request.context (the
 * structured facts the prompt was rendered from) and the tool responses in the messages.
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

  /** A repair request carries the original context, so it gets the same (valid) answer again. */
  private answer(request: GenerateRequest): Answer {
    const { context } = request;
    if (isContext(context, "planner")) return json(planFor(context));
    if (isContext(context, "reflector")) return json(reflectionFor(context));
    if (isContext(context, "concluder")) return json(conclusionFor(context));
    if (isIntrospectorContext(context)) return json(introspectionFor(context));
    if (isThreadAnswerContext(context)) {
      // A repair or a schema-bound request wants the answer, never another tool round.
      const final =
        context.finalAnswerOnly || isRepairRequest(request) || request.responseSchema !== undefined;
      const step = threadAnswerFor({ ...context, finalAnswerOnly: final });
      return step.kind === "calls" ? { toolCalls: step.calls } : json(step.answer);
    }
    if (isContext(context, "log_analyst")) {
      const reportOnly =
        isRepairRequest(request) || request.responseSchema !== undefined || !request.tools?.length;
      const result = logAnalystAnswer({
        context,
        messages: request.messages,
        tools: request.tools,
        reportOnly,
      });
      return result.kind === "calls" ? { toolCalls: result.calls } : json(result.answer);
    }
    if (isContext(context, "executor")) {
      const reportOnly =
        isRepairRequest(request) || request.responseSchema !== undefined || !request.tools?.length;
      const result = stepExecutorAnswer({
        context,
        messages: request.messages,
        tools: request.tools,
        reportOnly,
      });
      return result.kind === "calls" ? { toolCalls: result.calls } : json(result.report);
    }
    throw new ModelOutputError(
      `${this.name} has no rules for a "${request.purpose}" request without its structured context: it reasons over request.context, never over prompt text, and will not guess`,
      { purpose: request.purpose, contextPurpose: describeContext(context) },
    );
  }
}

function json(value: unknown): { text: string } {
  return { text: JSON.stringify(value) };
}

function describeContext(context: unknown): string {
  if (context === undefined) return "none";
  if (typeof context === "object" && context !== null && "purpose" in context)
    return String((context as { purpose: unknown }).purpose);
  return typeof context;
}

export function createOfflineModel(options: OfflineModelOptions = {}): OfflinePlaybookModel {
  return new OfflinePlaybookModel(options);
}

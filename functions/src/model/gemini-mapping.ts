import type {
  Content,
  FunctionDeclaration,
  GenerateContentConfig,
  GenerateContentResponse,
  Part,
} from "@google/genai";
import { ModelOutputError } from "../domain/errors.js";
import { type JsonObject, JsonObjectSchema } from "../domain/json.js";
import type { Usage } from "../domain/results.js";
import { toGeminiJsonSchema } from "./gemini-schema.js";
import type { GenerateRequest, GenerateResponse, Message, ToolCallRequest, ToolDeclaration } from "./port.js";

/**
 * Ids we invent for function calls that came back without one (Gemini 2.x often omits
 * them). They are ours, not the provider's, so they are not echoed back to it.
 */
export const GENERATED_CALL_ID_PREFIX = "ferret-call-";

/** Finish reasons after which the candidate is a usable answer. */
const USABLE_FINISH = new Set(["STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"]);

/**
 * Our conversation as Gemini `contents`. Tool results go back as functionResponse parts in a
 * user turn, which both the Developer API and Vertex accept. Empty turns are dropped because
 * Gemini rejects a content with no parts.
 */
export function toGeminiContents(messages: readonly Message[]): Content[] {
  const contents: Content[] = [];
  for (const message of messages) {
    const parts = toParts(message);
    if (parts.length > 0) contents.push({ role: message.role === "model" ? "model" : "user", parts });
  }
  return contents;
}

function toParts(message: Message): Part[] {
  switch (message.role) {
    case "user":
      return message.text === "" ? [] : [{ text: message.text }];
    case "model": {
      const parts: Part[] = message.text ? [{ text: message.text }] : [];
      for (const call of message.toolCalls ?? []) {
        parts.push({
          functionCall: { ...providerId(call.id), name: call.name, args: call.args },
          ...(call.signature ? { thoughtSignature: call.signature } : {}),
        });
      }
      return parts;
    }
    case "tool":
      return message.responses.map((r) => ({
        functionResponse: { ...providerId(r.id), name: r.name, response: r.response },
      }));
  }
}

function providerId(id: string): { id?: string } {
  return id.startsWith(GENERATED_CALL_ID_PREFIX) ? {} : { id };
}

export function toFunctionDeclarations(tools: readonly ToolDeclaration[]): FunctionDeclaration[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parametersJsonSchema: toGeminiJsonSchema(tool.parameters),
  }));
}

export interface ConfigDefaults {
  temperature?: number;
  /** Labels exist on Vertex only; the Developer API rejects them. */
  vertexai: boolean;
}

export function toGeminiConfig(request: GenerateRequest, defaults: ConfigDefaults): GenerateContentConfig {
  const config: GenerateContentConfig = {};
  if (request.system) config.systemInstruction = { parts: [{ text: request.system }] };
  const temperature = request.temperature ?? defaults.temperature;
  if (temperature !== undefined) config.temperature = temperature;
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.tools && request.tools.length > 0) {
    config.tools = [{ functionDeclarations: toFunctionDeclarations(request.tools) }];
  }
  if (request.responseSchema) {
    config.responseMimeType = "application/json";
    config.responseJsonSchema = toGeminiJsonSchema(request.responseSchema);
  }
  if (defaults.vertexai && request.investigationId) {
    config.labels = { investigation_id: labelValue(request.investigationId), purpose: request.purpose };
  }
  return config;
}

/** Vertex label values: lowercase letters, digits, _ and -, at most 63 characters. */
export function labelValue(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "_")
    .slice(0, 63);
}

export function fromGeminiResponse(
  raw: GenerateContentResponse,
  model: string,
  newId: () => string,
): GenerateResponse {
  const usage = usageOf(raw);
  const candidate = raw.candidates?.[0];
  if (!candidate) {
    const block = raw.promptFeedback?.blockReason;
    throw new ModelOutputError(
      `${model} returned no candidate${block ? `: prompt blocked (${block})` : ""}`,
      {
        model,
        blockReason: block,
        blockReasonMessage: raw.promptFeedback?.blockReasonMessage,
        usage,
      },
    );
  }
  const finishReason = candidate.finishReason;
  if (finishReason !== undefined && !USABLE_FINISH.has(finishReason)) {
    throw new ModelOutputError(`${model} stopped with finish reason ${finishReason}`, {
      model,
      finishReason,
      finishMessage: candidate.finishMessage,
      usage,
    });
  }
  let text: string | undefined;
  const toolCalls: ToolCallRequest[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (typeof part.text === "string" && part.thought !== true) text = (text ?? "") + part.text;
    if (part.functionCall?.name) {
      toolCalls.push({
        id: part.functionCall.id || newId(),
        name: part.functionCall.name,
        args: asJsonObject(part.functionCall.args),
        ...(part.thoughtSignature ? { signature: part.thoughtSignature } : {}),
      });
    }
  }
  if (toolCalls.length === 0 && (text === undefined || text.trim() === "")) {
    const why = finishReason === "MAX_TOKENS" ? " (output token limit reached before any answer)" : "";
    throw new ModelOutputError(`${model} returned an empty answer${why}`, { model, finishReason, usage });
  }
  const response: GenerateResponse = {
    toolCalls,
    usage,
    model,
    ...(text !== undefined ? { text } : {}),
    ...(finishReason !== undefined ? { finishReason } : {}),
  };
  return response;
}

/**
 * Thinking tokens are billed as output, so they count as output here too; tool-use prompt
 * tokens (built-in tools) are input the provider read on our behalf.
 */
export function usageOf(raw: GenerateContentResponse): Usage {
  const meta = raw.usageMetadata;
  return {
    llmCalls: 1,
    inputTokens: (meta?.promptTokenCount ?? 0) + (meta?.toolUsePromptTokenCount ?? 0),
    outputTokens: (meta?.candidatesTokenCount ?? 0) + (meta?.thoughtsTokenCount ?? 0),
  };
}

function asJsonObject(value: unknown): JsonObject {
  const parsed = JsonObjectSchema.safeParse(value ?? {});
  return parsed.success ? parsed.data : {};
}

import type {
  Content,
  FunctionDeclaration,
  GenerateContentConfig,
  GenerateContentResponse,
  Part,
  ThinkingConfig,
  ThinkingLevel,
} from "@google/genai";
import { ModelOutputError } from "../domain/errors.js";
import { type JsonObject, JsonObjectSchema } from "../domain/json.js";
import type { Usage } from "../domain/results.js";
import { ModelGlitchError } from "./errors.js";
import { toGeminiJsonSchema } from "./gemini-schema.js";
import type { GenerateRequest, GenerateResponse, Message, ToolCallRequest, ToolDeclaration } from "./port.js";

/**
 * Ids we invent for function calls that came back without one (Gemini 2.x often omits
 * them). They are ours, not the provider's, so they are not echoed back to it.
 */
export const GENERATED_CALL_ID_PREFIX = "ferret-call-";

/**
 * Finish reasons of a passing glitch: asked again (with a nudge) the model usually answers.
 * UNEXPECTED_TOOL_CALL / MALFORMED_RESPONSE are the same kind of slip in newer models.
 */
const GLITCH_FINISH: Record<string, ModelGlitchError["glitch"]> = {
  MALFORMED_FUNCTION_CALL: "malformed_function_call",
  UNEXPECTED_TOOL_CALL: "malformed_function_call",
  MALFORMED_RESPONSE: "malformed_function_call",
  OTHER: "other",
};

/**
 * Our conversation as Gemini `contents`. Tool results go back as functionResponse parts in a
 * user turn, which both the Developer API and Vertex accept. Empty turns are dropped because
 * Gemini rejects a content with no parts.
 */
export function toGeminiContents(messages: readonly Message[]): Content[] {
  const contents: Content[] = [];
  for (const message of messages) {
    const parts = toParts(message);
    if (parts.length === 0) continue;
    const role = message.role === "model" ? "model" : "user";
    const last = contents.at(-1);
    // Turns alternate in Gemini's contents: a user text after tool results (e.g. a retry's
    // nudge) joins the same user turn rather than opening a second one.
    if (last?.role === role && role === "user") last.parts = [...(last.parts ?? []), ...parts];
    else contents.push({ role, parts });
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
  /** The model id this request goes to: its family decides the thinking parameter. */
  model?: string;
  /** The role's settings; a request's own maxOutputTokens wins over the role's cap. */
  role?: { thinkingLevel: string; thinkingBudget: number; maxOutputTokens: number };
}

/** Gemini model generation (2 for "gemini-2.5-flash", 3 for "gemini-3.1-flash-lite"); undefined when not a Gemini id. */
export function geminiGeneration(model: string): number | undefined {
  const match = /(?:^|\/)gemini-(\d+)(?:\.\d+)?-/.exec(model);
  return match ? Number(match[1]) : undefined;
}

/**
 * Gemini 3 and later take thinkingLevel; 2.5 takes a token budget (sending both is a 400).
 * 2.0 and non-Gemini ids get no thinking config at all, which they would reject.
 */
export function thinkingConfigFor(
  model: string,
  role: { thinkingLevel: string; thinkingBudget: number },
): ThinkingConfig | undefined {
  const generation = geminiGeneration(model);
  if (generation === undefined) return undefined;
  if (generation >= 3) return { thinkingLevel: role.thinkingLevel.toUpperCase() as ThinkingLevel };
  if (/gemini-2\.5-/.test(model)) return { thinkingBudget: role.thinkingBudget };
  return undefined;
}

export function toGeminiConfig(request: GenerateRequest, defaults: ConfigDefaults): GenerateContentConfig {
  const config: GenerateContentConfig = {};
  if (request.system) config.systemInstruction = { parts: [{ text: request.system }] };
  const generation = defaults.model ? geminiGeneration(defaults.model) : undefined;
  const temperature = request.temperature ?? defaults.temperature;
  // Google asks to leave Gemini 3's temperature at its default (lower values can make it loop).
  if (temperature !== undefined && !(generation !== undefined && generation >= 3)) {
    config.temperature = temperature;
  }
  const maxOutputTokens = request.maxOutputTokens ?? defaults.role?.maxOutputTokens;
  if (maxOutputTokens !== undefined) config.maxOutputTokens = maxOutputTokens;
  const thinking =
    defaults.model && defaults.role ? thinkingConfigFor(defaults.model, defaults.role) : undefined;
  if (thinking) config.thinkingConfig = thinking;
  // ferret runs its own tool loop; the SDK must never turn one call into several requests.
  config.automaticFunctionCalling = { disable: true };
  if (request.signal) config.abortSignal = request.signal;
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
  const glitch = finishReason !== undefined ? GLITCH_FINISH[finishReason] : undefined;
  if (glitch) {
    throw new ModelGlitchError(`${model} stopped with finish reason ${finishReason}`, glitch, {
      model,
      finishReason,
      finishMessage: candidate.finishMessage,
      usage,
    });
  }
  if (finishReason === "MAX_TOKENS") {
    // A truncated answer is a failed one: half a JSON object or a call cut short is not usable.
    throw new ModelOutputError(`${model} hit its output token limit (MAX_TOKENS) before finishing`, {
      model,
      finishReason,
      usage,
    });
  }
  if (finishReason !== undefined && finishReason !== "STOP" && finishReason !== "FINISH_REASON_UNSPECIFIED") {
    // SAFETY, PROHIBITED_CONTENT, BLOCKLIST, SPII, RECITATION, …: asking again gets the same.
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
    throw new ModelGlitchError(`${model} returned an empty answer`, "empty_answer", {
      model,
      finishReason,
      usage,
    });
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
 * Thinking tokens are billed as output, so they count as output here too (and separately as
 * thinkingTokens); tool-use prompt tokens (built-in tools) are input the provider read on our
 * behalf. promptTokenCount already includes the cached part.
 */
export function usageOf(raw: GenerateContentResponse): Usage {
  const meta = raw.usageMetadata;
  return {
    llmCalls: 1,
    inputTokens: (meta?.promptTokenCount ?? 0) + (meta?.toolUsePromptTokenCount ?? 0),
    outputTokens: (meta?.candidatesTokenCount ?? 0) + (meta?.thoughtsTokenCount ?? 0),
    cachedInputTokens: meta?.cachedContentTokenCount ?? 0,
    thinkingTokens: meta?.thoughtsTokenCount ?? 0,
  };
}

function asJsonObject(value: unknown): JsonObject {
  const parsed = JsonObjectSchema.safeParse(value ?? {});
  return parsed.success ? parsed.data : {};
}

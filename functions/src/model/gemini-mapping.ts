import type {
  Content,
  FinishReason,
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
import { bareModelId, modelFacts } from "./catalog.js";
import { ModelGlitchError } from "./errors.js";
import { toGeminiJsonSchema } from "./gemini-schema.js";
import type { GenerateRequest, GenerateResponse, Message, ToolCallRequest, ToolDeclaration } from "./port.js";

/**
 * Ids we invent for function calls that came back without one (Gemini 2.x often omits
 * them). They are ours, not the provider's, so they are not echoed back to it.
 */
export const GENERATED_CALL_ID_PREFIX = "ferret-call-";

/** What ferret does with each finish reason. */
type FinishOutcome =
  | { kind: "ok" }
  /** A passing glitch: asked again with a nudge, the model usually answers (model/retry.ts). */
  | { kind: "glitch"; glitch: ModelGlitchError["glitch"] }
  /** Output withheld by a filter: asking again gets the same, so it is final. */
  | { kind: "refused" }
  /** Cut at the output cap: half a JSON object or a call cut short is not usable. */
  | { kind: "truncated" }
  /** Cut at the per-request limit with a token to continue from (the adapter continues). */
  | { kind: "continuation" };

/**
 * Every finish reason of @google/genai 3.1.0 (`FinishReason` in dist/genai.d.ts), decided once:
 * typed over the SDK's enum, so an SDK that adds a reason does not compile until it is decided
 * here. TOO_MANY_TOOL_CALLS ("called too many tools consecutively, thus the system exited") is a
 * glitch: asked again with a nudge to call fewer, the model can finish.
 */
export const FINISH_OUTCOMES: Record<`${FinishReason}`, FinishOutcome> = {
  FINISH_REASON_UNSPECIFIED: { kind: "ok" },
  STOP: { kind: "ok" },
  MAX_TOKENS: { kind: "truncated" },
  SAFETY: { kind: "refused" },
  RECITATION: { kind: "refused" },
  LANGUAGE: { kind: "refused" },
  BLOCKLIST: { kind: "refused" },
  PROHIBITED_CONTENT: { kind: "refused" },
  SPII: { kind: "refused" },
  IMAGE_SAFETY: { kind: "refused" },
  IMAGE_PROHIBITED_CONTENT: { kind: "refused" },
  IMAGE_RECITATION: { kind: "refused" },
  MALFORMED_FUNCTION_CALL: { kind: "glitch", glitch: "malformed_function_call" },
  UNEXPECTED_TOOL_CALL: { kind: "glitch", glitch: "malformed_function_call" },
  MALFORMED_RESPONSE: { kind: "glitch", glitch: "malformed_function_call" },
  TOO_MANY_TOOL_CALLS: { kind: "glitch", glitch: "too_many_tool_calls" },
  OTHER: { kind: "glitch", glitch: "other" },
  // ferret never asks for images; a model that stops on one has slipped, like OTHER.
  NO_IMAGE: { kind: "glitch", glitch: "other" },
  IMAGE_OTHER: { kind: "glitch", glitch: "other" },
  CONTINUATION: { kind: "continuation" },
};

/** An unknown reason (a newer API than the SDK) is treated like OTHER: asked again once. */
export function finishOutcome(reason: string | undefined): FinishOutcome {
  if (reason === undefined) return { kind: "ok" };
  return (FINISH_OUTCOMES as Record<string, FinishOutcome>)[reason] ?? { kind: "glitch", glitch: "other" };
}

/**
 * The thought signature Google documents for a function call the model did not make itself
 * (https://ai.google.dev/gemini-api/docs/thought-signatures#faqs, "skip_thought_signature_validator";
 * the Vertex page's "Using REST or manual handling" names the same value), in the two spellings in
 * use: the field is bytes on the wire, and google-genai for Python sends the base64 of the text,
 * while the Vertex page and google-gemini/gemini-cli send the text itself. Other SDKs report live
 * 400s ("Thought signature is not valid") with one or the other on one backend, so the adapter
 * starts with base64 and, refused, retries once with the literal text and keeps to what worked
 * (model/gemini.ts, per backend and model).
 */
export const DUMMY_SIGNATURE_SPELLINGS = {
  base64: Buffer.from("skip_thought_signature_validator", "utf8").toString("base64"),
  literal: "skip_thought_signature_validator",
} as const;
export type DummySpelling = keyof typeof DUMMY_SIGNATURE_SPELLINGS;

/** The spelling tried first. */
export const INJECTED_CALL_SIGNATURE = DUMMY_SIGNATURE_SPELLINGS.base64;

/**
 * Our conversation as Gemini `contents`. Tool results go back as functionResponse parts in a
 * user turn, which both the Developer API and Vertex accept. Empty turns are dropped because
 * Gemini rejects a content with no parts.
 *
 * Gemini 3 refuses (400) a request whose current turn holds a model content whose first function
 * call carries no thought signature. Model turns ferret writes itself (a step's planned calls
 * handed to the step executor model, histories saved before this rule was kept, calls another model
 * made before a fallback) have none, so each such first call gets the documented dummy; a call
 * that came back signed keeps its own signature. Earlier generations get nothing added.
 */
export function toGeminiContents(
  messages: readonly Message[],
  options: { model?: string; dummy?: DummySpelling } = {},
): Content[] {
  const generation = options.model ? geminiGeneration(options.model) : undefined;
  const signInjected = generation !== undefined && generation >= 3;
  const dummy = DUMMY_SIGNATURE_SPELLINGS[options.dummy ?? "base64"];
  const contents: Content[] = [];
  for (const message of messages) {
    const parts = toParts(message);
    if (signInjected && message.role === "model") {
      const first = parts.find((part) => part.functionCall !== undefined);
      if (first && !first.thoughtSignature) first.thoughtSignature = dummy;
    }
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
  /** The role's settings; a request's own maxOutputTokens wins over the role's answer cap. */
  role?: { thinkingLevel: string; thinkingBudget: number; maxOutputTokens: number };
}

/**
 * Gemini model generation of a configured id after resolving it (model/catalog.ts): 2 for
 * "gemini-2.5-flash", 3 for "gemini-3.1-flash-lite" and for the aliases that point at Gemini 3
 * ("gemini-flash-latest"); undefined for an id ferret cannot place, which gets no generation rule.
 */
export function geminiGeneration(model: string): number | undefined {
  return modelFacts(model)?.generation;
}

/**
 * Gemini 3 and later take thinkingLevel; 2.5 takes a token budget (sending both is a 400).
 * 2.0 and ids ferret cannot place get no thinking config at all, which they would reject.
 */
export function thinkingConfigFor(
  model: string,
  role: { thinkingLevel: string; thinkingBudget: number },
): ThinkingConfig | undefined {
  const facts = modelFacts(model);
  if (facts?.thinking === "level") {
    return { thinkingLevel: levelFor(facts.levels, role.thinkingLevel) as ThinkingLevel };
  }
  if (facts?.thinking === "budget") return { thinkingBudget: role.thinkingBudget };
  return undefined;
}

/**
 * The role's level, moved to the nearest one the model takes (the catalog's levels: Gemini 3 Pro
 * takes only LOW and HIGH, 3.1 Pro and the current Flash no MINIMAL; 400s recorded in
 * test/fixtures/real/gemini/issues). Sending the role's level anyway would make every call of
 * that role a 400 and the investigation fall back to the offline model.
 */
function levelFor(levels: readonly string[], level: string): string {
  const order = ["MINIMAL", "LOW", "MEDIUM", "HIGH"];
  const wanted = order.indexOf(level.toUpperCase());
  if (levels.includes(level.toUpperCase()) || levels.length === 0) return level.toUpperCase();
  // The nearest level above (more thinking is safer than less), else the highest accepted.
  const above = order.slice(wanted + 1).find((l) => levels.includes(l));
  return above ?? levels.at(-1)!;
}

/** Gemini 2.5 and 3.x take at most this many output tokens (thinking included) per request. */
export const MAX_OUTPUT_TOKENS = 65_536;

/**
 * Room for thinking on top of a role's answer cap, per Gemini 3 thinking level. A level is not a
 * bound (gemini-3-pro-preview at LOW thought 1,000–3,000 tokens, googleapis/python-genai#1795;
 * gemini-3.6-flash at its default spent 1,232 of a 1,500 cap thinking, vectorize-io/hindsight#3365),
 * and thinking counts against maxOutputTokens (python-genai#2062), so the cap sent is the answer's
 * cap plus this room: several times what was observed, still finite so that a runaway thinking
 * loop (python-genai#2062) stops. Only tokens produced are billed, so unused room costs nothing.
 */
export const THINKING_ROOM: Record<"minimal" | "low" | "medium" | "high", number> = {
  minimal: 4_096,
  low: 8_192,
  medium: 16_384,
  high: 32_768,
};

/**
 * The maxOutputTokens a request goes out with: the answer's cap plus room for thinking (the
 * role's budget on 2.5, which bounds thinking there; THINKING_ROOM per level on Gemini 3), within
 * the models' 65,536.
 */
export function outputCap(
  model: string | undefined,
  role: { thinkingLevel: string; thinkingBudget: number } | undefined,
  answerCap: number,
): number {
  const generation = model ? geminiGeneration(model) : undefined;
  let room = 0;
  if (generation !== undefined && generation >= 3 && role) {
    room = THINKING_ROOM[role.thinkingLevel as keyof typeof THINKING_ROOM] ?? THINKING_ROOM.high;
  } else if (model && modelFacts(model)?.thinking === "budget" && role) {
    room = role.thinkingBudget;
  }
  return Math.min(MAX_OUTPUT_TOKENS, answerCap + room);
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
  const answerCap = request.maxOutputTokens ?? defaults.role?.maxOutputTokens;
  if (answerCap !== undefined) config.maxOutputTokens = outputCap(defaults.model, defaults.role, answerCap);
  const thinking =
    defaults.model && defaults.role ? thinkingConfigFor(defaults.model, defaults.role) : undefined;
  if (thinking) config.thinkingConfig = thinking;
  // ferret runs its own tool loop; the SDK must never turn one call into several requests.
  config.automaticFunctionCalling = { disable: true };
  // @google/genai 3.x continues a CONTINUATION answer on its own by default and sums every
  // *TokenCount of the hops, prompt included, into one response (generateContentWithContinuation
  // in dist/node/index.mjs). The adapter continues itself instead, one counted request per hop.
  config.automaticContinuation = false;
  if (request.signal) config.abortSignal = request.signal;
  if (request.tools && request.tools.length > 0) {
    config.tools = [{ functionDeclarations: toFunctionDeclarations(request.tools) }];
  }
  if (request.responseSchema) {
    config.responseMimeType = "application/json";
    config.responseJsonSchema = toGeminiJsonSchema(request.responseSchema);
  }
  // Vertex forwards labels to billing, so ferret's spend can be split by role. No per-investigation
  // label: a key keeps at most 1,000 distinct values over a billing account's life and is dropped
  // past that (https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/add-labels-to-api-calls);
  // ferret counts each investigation's usage itself.
  if (defaults.vertexai) config.labels = { app: "ferret", role: request.brief.role };
  return config;
}

export function fromGeminiResponse(
  raw: GenerateContentResponse,
  model: string,
  newId: () => string,
  requests = 1,
): GenerateResponse {
  const usage = usageOf(raw, requests);
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
  const outcome = finishOutcome(finishReason);
  if (outcome.kind === "glitch") {
    throw new ModelGlitchError(`${model} stopped with finish reason ${finishReason}`, outcome.glitch, {
      model,
      finishReason,
      finishMessage: candidate.finishMessage,
      usage,
    });
  }
  if (outcome.kind === "truncated") {
    throw new ModelOutputError(`${model} hit its output token limit (MAX_TOKENS) before finishing`, {
      model,
      finishReason,
      usage,
    });
  }
  if (outcome.kind === "continuation") {
    // Reached only when the adapter could not continue (no token, or too many hops).
    throw new ModelOutputError(`${model} stopped with finish reason CONTINUATION and was not continued`, {
      model,
      finishReason,
      usage,
    });
  }
  if (outcome.kind === "refused") {
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
  const promptTokens = raw.usageMetadata?.promptTokenCount;
  // The model that answered, as the response names it: an alias or a deprecated id is served by
  // another model (model/catalog.ts), and that one is what the result records and is priced at.
  const response: GenerateResponse = {
    toolCalls,
    usage,
    model: raw.modelVersion ? bareModelId(raw.modelVersion) : model,
    ...(text !== undefined ? { text } : {}),
    ...(finishReason !== undefined ? { finishReason } : {}),
    ...(promptTokens !== undefined ? { promptTokens } : {}),
  };
  return response;
}

/** Whether `contents` carry the dummy signature in this spelling (so its refusal may be the spelling's). */
export function carriesDummy(contents: readonly Content[], spelling: DummySpelling): boolean {
  const dummy = DUMMY_SIGNATURE_SPELLINGS[spelling];
  return contents.some((c) => (c.parts ?? []).some((p) => p.thoughtSignature === dummy));
}

/** Gemini's refusal of a signature it cannot validate, in both backends' wordings. */
export function refusesSignature(providerMessage: string): boolean {
  return /thought signature is not valid|invalid thought signature/i.test(providerMessage);
}

/** The token to continue from, when a response stopped at CONTINUATION with one. */
export function continuationTokenOf(raw: GenerateContentResponse): string | undefined {
  const candidate = raw.candidates?.[0];
  return candidate?.finishReason === "CONTINUATION" && candidate.continuationToken
    ? candidate.continuationToken
    : undefined;
}

/**
 * The hops of one continued answer as one response: the parts in order, the last hop's finish,
 * every hop's billed tokens summed (each hop is a request the provider bills), and as the prompt
 * size the first hop's promptTokenCount, since every hop re-reads the same request.
 */
export function joinHops(hops: readonly GenerateContentResponse[]): GenerateContentResponse {
  const first = hops[0];
  const last = hops.at(-1);
  if (!first || !last || hops.length === 1) return first ?? ({} as GenerateContentResponse);
  const sum = (
    field:
      | "promptTokenCount"
      | "candidatesTokenCount"
      | "thoughtsTokenCount"
      | "cachedContentTokenCount"
      | "toolUsePromptTokenCount",
  ) => hops.reduce((total, hop) => total + (hop.usageMetadata?.[field] ?? 0), 0);
  const lastCandidate = last.candidates?.[0];
  return {
    ...last,
    candidates: [
      {
        ...lastCandidate,
        content: {
          role: "model",
          parts: hops.flatMap((hop) => hop.candidates?.[0]?.content?.parts ?? []),
        },
      },
    ],
    usageMetadata: {
      promptTokenCount: sum("promptTokenCount"),
      candidatesTokenCount: sum("candidatesTokenCount"),
      thoughtsTokenCount: sum("thoughtsTokenCount"),
      cachedContentTokenCount: sum("cachedContentTokenCount"),
      toolUsePromptTokenCount: sum("toolUsePromptTokenCount"),
    },
  } as GenerateContentResponse;
}

/**
 * Thinking tokens are billed as output, so they count as output here too (and separately as
 * thinkingTokens); tool-use prompt tokens (built-in tools) are input the provider read on our
 * behalf. promptTokenCount already includes the cached part.
 */
export function usageOf(raw: GenerateContentResponse, requests = 1): Usage {
  const meta = raw.usageMetadata;
  return {
    llmCalls: requests,
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

import type { Brief } from "../agent/briefs.js";
import type { JsonObject } from "../domain/json.js";
import type { Usage } from "../domain/results.js";

/**
 * The one interface every agent role talks to. Adapters: Gemini (production), the
 * offline playbook model (demo, CI, fallback) and, under test/helpers, the scripted model (tests).
 */
export interface Model {
  /** Stable name recorded on results, e.g. "gemini-3.8-flash" or "offline-playbook". */
  readonly name: string;
  /** True when no LLM stands behind this model; conclusions must then say so. */
  readonly offline: boolean;
  generate(request: GenerateRequest): Promise<GenerateResponse>;
  embed(request: EmbedRequest): Promise<number[][]>;
}

export interface ToolDeclaration {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12 subset) of the tool's arguments object. */
  parameters: JsonObject;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  args: JsonObject;
  /**
   * Opaque provider state tied to the call (Gemini's thought signature), echoed back with it
   * on later turns. It travels with the call, so a step history saved to storage and resumed
   * in another process still carries it. Calls ferret writes itself (a step's planned calls) have
   * none; the Gemini adapter gives those the documented dummy signature when it sends them.
   */
  signature?: string;
}

export interface ToolResponse {
  id: string;
  name: string;
  /** What the tool returned, as the model will read it. Always data, never instructions. */
  response: JsonObject;
}

export type Message =
  | { role: "user"; text: string }
  | { role: "model"; text?: string; toolCalls?: ToolCallRequest[] }
  | { role: "tool"; responses: ToolResponse[] };

export interface GenerateRequest {
  /**
   * What the role was asked, typed per role; `system` and the first message were rendered from
   * it. LLM adapters read its role (per-role settings, labels, meters) and send the text; the
   * rule model reasons over the brief itself and never reads the text.
   */
  brief: Brief;
  system: string;
  messages: Message[];
  tools?: ToolDeclaration[];
  /** When set, the answer must be JSON matching this schema (draft 2020-12 subset). */
  responseSchema?: JsonObject;
  temperature?: number;
  maxOutputTokens?: number;
  /** Propagated to logs and provider request labels. */
  investigationId?: string;
  /** The step's deadline: aborts the HTTP call and any retry wait. */
  signal?: AbortSignal;
  /** The same deadline as a time (epoch ms): retries are sized to what remains of it (model/retry.ts). */
  deadlineAt?: number;
}

export interface GenerateResponse {
  text?: string;
  toolCalls: ToolCallRequest[];
  /** Everything billed for this answer: every request, continuation hops and nudged retries included. */
  usage: Usage;
  model: string;
  finishReason?: string;
  /**
   * The prompt of the request that answered, counted once: the context size. usage.inputTokens
   * can be a multiple of it (a continued answer re-reads the prompt per hop, a nudged retry sends
   * it again), so the compression threshold reads this instead.
   */
  promptTokens?: number;
}

export type EmbedTask = "RETRIEVAL_DOCUMENT" | "RETRIEVAL_QUERY" | "SEMANTIC_SIMILARITY";

export interface EmbedRequest {
  texts: string[];
  task: EmbedTask;
  /** 768 unless a caller has a reason; Firestore's vector index is declared with it. */
  dimensions?: number;
  signal?: AbortSignal;
}

export const EMBEDDING_DIMENSIONS = 768;

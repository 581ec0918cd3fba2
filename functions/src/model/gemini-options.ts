import { z } from "zod";
import { hasGeminiCredentials, readGeminiCredentials } from "../config/environment.js";

import {
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_GEMINI_LITE_MODEL,
  DEFAULT_GEMINI_MODEL,
  PriceSchema,
  RoleModelSettingsSchema,
} from "../config/model-settings.js";

export { DEFAULT_EMBEDDING_MODEL, DEFAULT_GEMINI_LITE_MODEL, DEFAULT_GEMINI_MODEL };
export const DEFAULT_TIMEOUT_MS = 90_000;

export const GeminiOptionsSchema = z.object({
  model: z.string().min(1).default(DEFAULT_GEMINI_MODEL),
  /** Serves the roles whose settings say "lite". */
  liteModel: z.string().min(1).default(DEFAULT_GEMINI_LITE_MODEL),
  embeddingModel: z.string().min(1).default(DEFAULT_EMBEDDING_MODEL),
  /** Vertex AI (ADC credentials, project/location) instead of the Gemini Developer API. */
  vertexai: z.boolean().default(false),
  project: z.string().min(1).optional(),
  location: z.string().min(1).optional(),
  /** Developer API key, or a Vertex express-mode key. */
  apiKey: z.string().min(1).optional(),
  /** Tests point this at a local server that speaks the REST shape. */
  baseUrl: z.url().optional(),
  /**
   * REST version. The Developer API defaults to v1beta here (SDK 3.x would pick v1) because
   * that is where Google documents responseJsonSchema and parametersJsonSchema; Vertex keeps
   * the SDK's default (v1beta1).
   */
  apiVersion: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Per HTTP attempt; the SDK aborts the request when it passes. */
  timeoutMs: z.number().int().positive().default(DEFAULT_TIMEOUT_MS),
  /** Texts per embedding request; default depends on backend and model (see embedBatchSize). */
  embedBatchSize: z.number().int().min(1).max(250).optional(),
  /** Per-role model, thinking and output cap (config.model.roles); absent roles use the defaults. */
  roles: z.record(z.string(), RoleModelSettingsSchema).optional(),
  /** USD per million tokens by model id, for usage.costUsd (config.model.prices). */
  prices: z.record(z.string(), PriceSchema).optional(),
});
export type GeminiOptions = z.input<typeof GeminiOptionsSchema>;
export type ResolvedGeminiOptions = z.output<typeof GeminiOptionsSchema>;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The credential variables @google/genai documents, resolved by the environment reader
 * (config/environment.ts) rather than left to the SDK, so what the adapter uses is visible
 * and testable. Model names, timeout and budgets come from the config.
 */
export function geminiOptionsFromEnv(env: Env): GeminiOptions {
  return { ...readGeminiCredentials(env) };
}

/** The config's model section as adapter options. */
export function geminiOptionsFromConfig(model: {
  geminiModel: string;
  geminiLiteModel: string;
  embeddingModel: string;
  timeoutMs: number;
  roles: GeminiOptions["roles"];
  prices: GeminiOptions["prices"];
}): GeminiOptions {
  return {
    model: model.geminiModel,
    liteModel: model.geminiLiteModel,
    embeddingModel: model.embeddingModel,
    timeoutMs: model.timeoutMs,
    ...(model.roles ? { roles: model.roles } : {}),
    ...(model.prices ? { prices: model.prices } : {}),
  };
}

/** Whether the environment holds enough to reach Gemini; otherwise use the offline model. */
export function isGeminiConfigured(env: Env): boolean {
  return hasGeminiCredentials(readGeminiCredentials(env));
}

/**
 * Texts per embedding request. On Vertex, Gemini embedding models take one text per request
 * (gemini-embedding-001 through :predict, newer ones through :embedContent, which the SDK
 * refuses to send more than one content to); the older text-embedding models take up to 250.
 * The Developer API's batchEmbedContents takes 100 texts, each sent as its own content.
 */
export function embedBatchSize(options: ResolvedGeminiOptions): number {
  if (options.embedBatchSize) return options.embedBatchSize;
  if (!options.vertexai) return 100;
  return /gemini/.test(options.embeddingModel) ? 1 : 250;
}

import { z } from "zod";

export const DEFAULT_GEMINI_MODEL = "gemini-2.5-flash";
export const DEFAULT_EMBEDDING_MODEL = "gemini-embedding-001";

export const GeminiOptionsSchema = z.object({
  model: z.string().min(1).default(DEFAULT_GEMINI_MODEL),
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
  timeoutMs: z.number().int().positive().optional(),
  /** Texts per embedding request; default depends on backend and model (see embedBatchSize). */
  embedBatchSize: z.number().int().min(1).max(250).optional(),
});
export type GeminiOptions = z.input<typeof GeminiOptionsSchema>;
export type ResolvedGeminiOptions = z.output<typeof GeminiOptionsSchema>;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The variables @google/genai documents, plus ferret's model names. Resolved here, not left
 * to the SDK, so what the adapter uses is visible and testable (the SDK would otherwise read
 * process.env behind our back).
 */
export function geminiOptionsFromEnv(env: Env = process.env): GeminiOptions {
  const vertexai = isTrue(env.GOOGLE_GENAI_USE_VERTEXAI);
  const apiKey = nonEmpty(env.GOOGLE_API_KEY) ?? nonEmpty(env.GEMINI_API_KEY);
  const project = nonEmpty(env.GOOGLE_CLOUD_PROJECT);
  const location = nonEmpty(env.GOOGLE_CLOUD_LOCATION);
  const timeout = nonEmpty(env.FERRET_GEMINI_TIMEOUT_MS);
  const options: GeminiOptions = {
    model: nonEmpty(env.FERRET_GEMINI_MODEL) ?? DEFAULT_GEMINI_MODEL,
    embeddingModel: nonEmpty(env.FERRET_GEMINI_EMBEDDING_MODEL) ?? DEFAULT_EMBEDDING_MODEL,
    vertexai,
    ...(timeout ? { timeoutMs: Number(timeout) } : {}),
  };
  if (vertexai) {
    // Project/location win over a key on Vertex, as in the SDK: a key means express mode.
    if (project) return { ...options, project, location: location ?? "global" };
    return apiKey ? { ...options, apiKey } : options;
  }
  return apiKey ? { ...options, apiKey } : options;
}

/** Whether the environment holds enough to reach Gemini; otherwise use the offline model. */
export function isGeminiConfigured(env: Env = process.env): boolean {
  const options = geminiOptionsFromEnv(env);
  return options.vertexai ? Boolean(options.project ?? options.apiKey) : Boolean(options.apiKey);
}

/**
 * Vertex serves gemini-embedding-001 one text per request; other Vertex embedding models
 * take up to 250, and the Developer API's batchEmbedContents takes 100.
 */
export function embedBatchSize(options: ResolvedGeminiOptions): number {
  if (options.embedBatchSize) return options.embedBatchSize;
  if (!options.vertexai) return 100;
  return options.embeddingModel === DEFAULT_EMBEDDING_MODEL ? 1 : 250;
}

function isTrue(value: string | undefined): boolean {
  return value !== undefined && ["true", "1", "yes"].includes(value.trim().toLowerCase());
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

import { z } from "zod";

/**
 * Gemini settings that vary per agent role: which model answers, how much it may think and
 * how long its answer may be. Kept apart from config.ts so the defaults table (and why each
 * role got its values) reads in one place; docs/decisions/0013 gives the reasons.
 */

/** Defaults of model.geminiModel, model.geminiLiteModel and model.embeddingModel, defined once. */
export const DEFAULT_GEMINI_MODEL = "gemini-3.8-flash";
export const DEFAULT_GEMINI_LITE_MODEL = "gemini-3.1-flash-lite";
export const DEFAULT_EMBEDDING_MODEL = "gemini-embedding-001";

export const MODEL_ROLES = [
  "planner",
  "executor",
  "reflector",
  "concluder",
  "log_analyst",
  "compressor",
  "introspector",
  "repair",
  "thread_answer",
] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** Gemini 3 and later: thinkingConfig.thinkingLevel. */
export const ThinkingLevelSchema = z.enum(["minimal", "low", "medium", "high"]);
export type ThinkingLevel = z.infer<typeof ThinkingLevelSchema>;

export const RoleModelSettingsSchema = z.strictObject({
  /** "main" (model.geminiModel), "lite" (model.geminiLiteModel) or an explicit model id. */
  model: z.string().min(1),
  /** Used by Gemini 3+ models. */
  thinkingLevel: ThinkingLevelSchema,
  /** Used by Gemini 2.x models (tokens; 0 turns thinking off where the model allows it). */
  thinkingBudget: z.number().int().min(0).max(32_768),
  /**
   * Cap on the visible answer. Thinking counts against a request's maxOutputTokens on 2.5 and
   * 3.x, so the adapter sends this plus room for thinking (model/gemini-mapping.ts outputCap).
   */
  maxOutputTokens: z.number().int().min(64).max(65_536),
});
export type RoleModelSettings = z.infer<typeof RoleModelSettingsSchema>;

/**
 * Thinking is billed at the output rate, so every role gets a deliberate level instead of
 * the model's dynamic default: routing and compression think little, planning and the
 * verdict think more. Answer caps sit well above what each role's schema needs, so hitting
 * one (after the thinking room the adapter adds) means a runaway answer, which the adapter
 * treats as a failed answer.
 */
export const DEFAULT_ROLE_SETTINGS: Record<ModelRole, RoleModelSettings> = {
  planner: { model: "main", thinkingLevel: "medium", thinkingBudget: 4_096, maxOutputTokens: 8_192 },
  executor: { model: "lite", thinkingLevel: "medium", thinkingBudget: 2_048, maxOutputTokens: 4_096 },
  reflector: { model: "main", thinkingLevel: "low", thinkingBudget: 2_048, maxOutputTokens: 4_096 },
  concluder: { model: "main", thinkingLevel: "medium", thinkingBudget: 4_096, maxOutputTokens: 8_192 },
  log_analyst: { model: "main", thinkingLevel: "medium", thinkingBudget: 4_096, maxOutputTokens: 8_192 },
  compressor: { model: "lite", thinkingLevel: "low", thinkingBudget: 1_024, maxOutputTokens: 8_192 },
  introspector: { model: "lite", thinkingLevel: "low", thinkingBudget: 1_024, maxOutputTokens: 4_096 },
  repair: { model: "main", thinkingLevel: "low", thinkingBudget: 1_024, maxOutputTokens: 8_192 },
  thread_answer: { model: "lite", thinkingLevel: "low", thinkingBudget: 1_024, maxOutputTokens: 4_096 },
};

/** USD per million tokens. `cachedInput` applies to cachedContentTokenCount (implicit or explicit cache). */
export const PriceSchema = z.strictObject({
  input: z.number().min(0),
  cachedInput: z.number().min(0),
  /** Output including thinking tokens. */
  output: z.number().min(0),
});
export type Price = z.infer<typeof PriceSchema>;

/**
 * Standard paid-tier text prices for prompts up to 200k tokens, as published on
 * https://ai.google.dev/gemini-api/docs/pricing (read through the sources cited in
 * docs/decisions/0013 and 0047, December 2026). Vertex AI list prices for these models are the
 * same for the global endpoint. gemini-3.8-flash is at its list price, which applies from
 * 2027-01-01 (half of it until then). A response is priced at the model that answered
 * (`modelVersion`), so deprecated ids keep their price for the requests not yet routed.
 * Estimates only: the bill is the authority.
 */
export const DEFAULT_PRICES: Record<string, Price> = {
  "gemini-3.8-flash": { input: 1.5, cachedInput: 0.15, output: 7.5 },
  "gemini-3.6-flash": { input: 1.5, cachedInput: 0.15, output: 7.5 },
  "gemini-3.5-flash": { input: 1.5, cachedInput: 0.15, output: 9 },
  "gemini-3.5-flash-lite": { input: 0.3, cachedInput: 0.03, output: 2.5 },
  "gemini-3.1-flash-lite": { input: 0.25, cachedInput: 0.025, output: 1.5 },
  "gemini-3-flash-preview": { input: 0.5, cachedInput: 0.05, output: 3 },
  "gemini-2.5-flash": { input: 0.3, cachedInput: 0.03, output: 2.5 },
};

const roleEntry = (role: ModelRole) =>
  RoleModelSettingsSchema.partial()
    .prefault({})
    .transform((partial) => ({
      ...DEFAULT_ROLE_SETTINGS[role],
      ...partial,
    }));

/** Spread into config.model. */
export const GeminiModelSettingsShape = {
  /** The smaller model for roles whose settings say "lite". */
  geminiLiteModel: z.string().min(1).default(DEFAULT_GEMINI_LITE_MODEL),
  /** Per HTTP attempt; a stalled call must not eat the step's whole deadline. */
  timeoutMs: z.number().int().min(1_000).max(600_000).default(90_000),
  /**
   * Longest wait a 429's RetryInfo may impose before the retry; a longer delay is not waited
   * for (the call fails over to the offline model instead).
   */
  maxRetryWaitMs: z.number().int().min(0).max(300_000).default(60_000),
  roles: z
    .strictObject(
      Object.fromEntries(MODEL_ROLES.map((role) => [role, roleEntry(role)])) as {
        [K in ModelRole]: ReturnType<typeof roleEntry>;
      },
    )
    .prefault({}),
  prices: z
    .record(z.string().min(1), PriceSchema)
    .default({})
    .transform((prices) => ({ ...DEFAULT_PRICES, ...prices })),
};

/** "main"/"lite" resolved against the configured model ids. */
export function roleModelId(
  settings: Pick<RoleModelSettings, "model">,
  models: { geminiModel: string; geminiLiteModel: string },
): string {
  if (settings.model === "main") return models.geminiModel;
  if (settings.model === "lite") return models.geminiLiteModel;
  return settings.model;
}

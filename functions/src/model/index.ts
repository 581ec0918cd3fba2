export * from "./errors.js";
export { type FallbackModel, type FallbackOptions, type FallbackReason, withFallback } from "./fallback.js";
export { GeminiModel } from "./gemini.js";
export {
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_GEMINI_MODEL,
  type GeminiOptions,
  GeminiOptionsSchema,
  geminiOptionsFromEnv,
  isGeminiConfigured,
} from "./gemini-options.js";
export { hashEmbedding } from "./hash-embedding.js";
export { jsonSchemaOf } from "./json-schema.js";
export { type EmbedMeter, type Meter, type Metered, metered } from "./metered.js";
export * from "./port.js";
export { backoffDelay, type RetryInfo, type RetryOptions, shouldRetry, withRetry } from "./retry.js";
export {
  describeIssues,
  generateStructured,
  isRepairRequest,
  type JsonParse,
  parseJsonText,
  REPAIR_MARKER,
  type StructuredOptions,
  type StructuredResult,
  type Validation,
  validateOrDescribe,
} from "./structured.js";
export { estimateInputTokens, estimateOutputTokens, estimateTokens } from "./tokens.js";

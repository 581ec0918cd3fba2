import type { Config } from "../config/config.js";
import { hasGeminiCredentials, readGeminiCredentials } from "../config/environment.js";
import { ConfigError, errorMessage } from "../domain/errors.js";
import { unplacedModel } from "../model/catalog.js";
import { GeminiModel } from "../model/gemini.js";
import { geminiOptionsFromConfig } from "../model/gemini-options.js";
import { lifecycleWarning } from "../model/lifecycle.js";
import type { Model } from "../model/port.js";
import { withRetry } from "../model/retry.js";
import type { Logger } from "../platform/logger.js";

/**
 * The process's primary model: Gemini (with retries) when the config asks for it or `auto`
 * finds credentials, otherwise the offline model. Which model serves a given investigation
 * is then chooseModel's decision (model/choice.ts).
 */
export function choosePrimaryModel(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  offline: Model,
  logger: Logger,
): Model {
  const credentials = readGeminiCredentials(env);
  const configured = hasGeminiCredentials(credentials);
  const wantGemini = config.model.provider === "gemini" || (config.model.provider === "auto" && configured);
  if (!wantGemini) return offline;
  if (!configured) {
    throw new ConfigError(
      "FERRET_MODEL_PROVIDER=gemini but no Gemini credentials: set GEMINI_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION",
    );
  }
  const gemini = new GeminiModel({ ...credentials, ...geminiOptionsFromConfig(config.model) });
  for (const model of gemini.modelIds()) {
    const unplaced = unplacedModel(model, false);
    if (unplaced)
      logger.error("configured Gemini model is unknown to ferret; no generation rule applies", {
        model,
        unplaced,
      });
    const warning = lifecycleWarning(model, new Date());
    if (warning) logger.warn("configured Gemini model is retired or retiring", { model, warning });
  }
  return withRetry(gemini, {
    maxRetryAfterMs: config.model.maxRetryWaitMs,
    onRetry: (info) =>
      logger.warn("model call retried", {
        attempt: info.attempt,
        delayMs: info.delayMs,
        operation: info.operation,
        nudged: info.nudged ?? false,
        error: errorMessage(info.error),
      }),
  });
}

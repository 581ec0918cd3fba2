import { isRetryable, ModelOutputError, TokenLimitError } from "../domain/errors.js";
import { ProviderUnavailableError } from "./errors.js";
import type { EmbedRequest, GenerateRequest, GenerateResponse, Model } from "./port.js";

export interface RetryInfo {
  /** The attempt that failed, 1-based. */
  attempt: number;
  delayMs: number;
  error: unknown;
  operation: "generate" | "embed";
}

export interface RetryOptions {
  /** Attempts including the first. Default 4. */
  maxAttempts?: number;
  /** Cap of the first retry's delay; doubles per retry. Default 1000. */
  baseDelayMs?: number;
  /** No single wait is longer. Default 20000. */
  maxDelayMs?: number;
  /** "full": uniform in [0, cap) (AWS "full jitter"); "none": exactly the cap. Default "full". */
  jitter?: "full" | "none";
  sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1). */
  random?: () => number;
  onRetry?: (info: RetryInfo) => void;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The delay before retry number `retry` (1 = the first retry): full jitter over an
 * exponentially growing cap, so many instances hitting the same 429 spread out instead of
 * returning in lockstep. A provider's RetryInfo is honoured as a floor, within maxDelayMs.
 */
export function backoffDelay(
  retry: number,
  options: Required<Pick<RetryOptions, "baseDelayMs" | "maxDelayMs" | "jitter" | "random">>,
  retryAfterMs?: number,
): number {
  const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  const jittered = options.jitter === "full" ? Math.floor(options.random() * cap) : cap;
  const floor = retryAfterMs !== undefined ? Math.min(retryAfterMs, options.maxDelayMs) : 0;
  return Math.max(jittered, floor);
}

/**
 * Retries what can succeed later (rate limits, 5xx, network) and nothing else: a token-limit
 * error needs compression and a bad answer needs the repair path, not the same request again.
 */
export function shouldRetry(error: unknown): boolean {
  if (error instanceof TokenLimitError || error instanceof ModelOutputError) return false;
  return isRetryable(error);
}

export function withRetry(model: Model, options: RetryOptions = {}): Model {
  const settings = {
    maxAttempts: Math.max(1, options.maxAttempts ?? 4),
    baseDelayMs: options.baseDelayMs ?? 1_000,
    maxDelayMs: options.maxDelayMs ?? 20_000,
    jitter: options.jitter ?? "full",
    random: options.random ?? Math.random,
  };
  const sleep = options.sleep ?? defaultSleep;

  async function run<T>(operation: RetryInfo["operation"], call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (attempt >= settings.maxAttempts || !shouldRetry(error)) throw error;
        const retryAfter = error instanceof ProviderUnavailableError ? error.retryAfterMs : undefined;
        const delayMs = backoffDelay(attempt, settings, retryAfter);
        options.onRetry?.({ attempt, delayMs, error, operation });
        await sleep(delayMs);
      }
    }
  }

  return {
    get name() {
      return model.name;
    },
    get offline() {
      return model.offline;
    },
    generate: (request: GenerateRequest): Promise<GenerateResponse> =>
      run("generate", () => model.generate(request)),
    embed: (request: EmbedRequest): Promise<number[][]> => run("embed", () => model.embed(request)),
  };
}

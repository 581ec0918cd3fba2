import { isRetryable, ModelOutputError, TokenLimitError } from "../domain/errors.js";
import { addUsage, type Usage, UsageSchema } from "../domain/results.js";
import { ModelGlitchError, ProviderUnavailableError } from "./errors.js";
import type { EmbedRequest, GenerateRequest, GenerateResponse, Model } from "./port.js";

export interface RetryInfo {
  /** The attempt that failed, 1-based. */
  attempt: number;
  delayMs: number;
  error: unknown;
  operation: "generate" | "embed";
  /** True when the retry re-asks with a nudge after a glitch of the answer. */
  nudged?: boolean;
}

export interface RetryOptions {
  /** Attempts including the first, for a call with no deadline. Default 4. */
  maxAttempts?: number;
  /**
   * Attempts including the first for a rate-limited (429) call that carries its step's deadline
   * (`deadlineAt`): there the deadline bounds the retries, and this only stops a runaway.
   * Default 12.
   */
  maxAttemptsWithinDeadline?: number;
  /**
   * Time kept for the attempt after a wait: a wait that would leave less of the deadline than
   * this is not started, and the error goes up while the step can still fall back. Default 10000.
   */
  attemptReserveMs?: number;
  /**
   * First cap of the backoff after a 429 that carries no RetryInfo (Vertex's shared quota, whose
   * 429s usually carry none): a busy shared pool needs longer than a passing 5xx. Default 2000.
   */
  sharedQuotaBaseDelayMs?: number;
  /** The clock the deadline is read against. Default Date.now. */
  now?: () => number;
  /** Cap of the first retry's delay; doubles per retry. Default 1000. */
  baseDelayMs?: number;
  /** No single backoff wait is longer. Default 20000. */
  maxDelayMs?: number;
  /**
   * The longest wait a provider's RetryInfo may impose (Gemini often asks for 30-60 s).
   * A longer requested delay is not waited for: the error goes up (and the investigation to
   * the offline model). Default 60000.
   */
  maxRetryAfterMs?: number;
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
 * returning in lockstep. A provider's RetryInfo is honoured as a floor (the caller has
 * already refused delays beyond maxRetryAfterMs).
 */
export function backoffDelay(
  retry: number,
  options: Required<Pick<RetryOptions, "baseDelayMs" | "maxDelayMs" | "jitter" | "random">>,
  retryAfterMs?: number,
): number {
  const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  const jittered = options.jitter === "full" ? Math.floor(options.random() * cap) : cap;
  return Math.max(jittered, retryAfterMs ?? 0);
}

/**
 * Retries what can succeed later (rate limits, 5xx, network) and nothing else: a token-limit
 * error needs compression, a bad answer the repair path, a spent daily quota or a retired
 * model a person. Glitches of the answer are handled apart (once, with a nudge).
 */
export function shouldRetry(error: unknown): boolean {
  if (error instanceof TokenLimitError || error instanceof ModelOutputError) return false;
  return isRetryable(error);
}

/**
 * What the retried request says after a glitch. It names the failure, not the content, and
 * asks for the declared form; the model's earlier (broken) answer is not echoed.
 */
export function nudgeText(error: ModelGlitchError): string {
  if (error.glitch === "too_many_tool_calls") {
    return "Your previous reply stopped because it called too many functions in a row. Answer again with fewer function calls: only those you still need, or none if what you have is enough to reply in the requested format.";
  }
  const what =
    error.glitch === "malformed_function_call"
      ? "Your previous reply contained a malformed function call."
      : error.glitch === "empty_answer"
        ? "Your previous reply was empty."
        : "Your previous reply stopped before it was complete.";
  return `${what} Answer again: call one of the declared functions with valid arguments, or reply in the requested format.`;
}

/** A 429: the provider asks to come back later, which a longer wait can serve. */
function isRateLimited(error: unknown): boolean {
  return error instanceof ProviderUnavailableError && error.httpStatus === 429;
}

/** A 429 without RetryInfo: Vertex's dynamic shared quota, which says nothing of when to return. */
function isSharedQuota(error: unknown): boolean {
  return (
    error instanceof ProviderUnavailableError && error.httpStatus === 429 && error.retryAfterMs === undefined
  );
}

export function withRetry(model: Model, options: RetryOptions = {}): Model {
  const now = options.now ?? Date.now;
  const settings = {
    maxAttempts: Math.max(1, options.maxAttempts ?? 4),
    maxAttemptsWithinDeadline: Math.max(1, options.maxAttemptsWithinDeadline ?? 12),
    attemptReserveMs: options.attemptReserveMs ?? 10_000,
    sharedQuotaBaseDelayMs: options.sharedQuotaBaseDelayMs ?? 2_000,
    baseDelayMs: options.baseDelayMs ?? 1_000,
    maxDelayMs: options.maxDelayMs ?? 20_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    jitter: options.jitter ?? "full",
    random: options.random ?? Math.random,
  };
  const sleep = options.sleep ?? defaultSleep;

  /**
   * The wait before the next attempt, or undefined when there should be none. A 429 within the
   * step's deadline is retried while a wait and an attempt still fit in what remains, so a burst
   * of rate limits costs the one call some waiting, not the investigation its LLM; other failures
   * (an outage, a network fault) keep maxAttempts. With a deadline every wait is cut to fit it.
   */
  function nextDelay(attempt: number, error: unknown, deadlineAt: number | undefined): number | undefined {
    const limit =
      deadlineAt !== undefined && isRateLimited(error)
        ? settings.maxAttemptsWithinDeadline
        : settings.maxAttempts;
    if (attempt >= limit) return undefined;
    const retryAfter = error instanceof ProviderUnavailableError ? error.retryAfterMs : undefined;
    // Waiting longer than the bound would spend the step's deadline idle: give up now.
    if (retryAfter !== undefined && retryAfter > settings.maxRetryAfterMs) return undefined;
    const base = isSharedQuota(error)
      ? Math.max(settings.baseDelayMs, settings.sharedQuotaBaseDelayMs)
      : settings.baseDelayMs;
    const delay = backoffDelay(attempt, { ...settings, baseDelayMs: base }, retryAfter);
    if (deadlineAt === undefined) return delay;
    const room = deadlineAt - now() - settings.attemptReserveMs;
    // The provider's own delay is a floor: if it does not fit, neither does the attempt.
    if (room <= 0 || (retryAfter !== undefined && retryAfter > room)) return undefined;
    return Math.min(delay, room);
  }

  async function run<T>(
    operation: RetryInfo["operation"],
    call: () => Promise<T>,
    signal: AbortSignal | undefined,
    deadlineAt?: number,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (!shouldRetry(error) || signal?.aborted) throw error;
        const delayMs = nextDelay(attempt, error, deadlineAt);
        if (delayMs === undefined) throw error;
        options.onRetry?.({ attempt, delayMs, error, operation });
        await abortableSleep(sleep, delayMs, signal, error);
      }
    }
  }

  async function generate(request: GenerateRequest): Promise<GenerateResponse> {
    const once = () => run("generate", () => model.generate(request), request.signal, request.deadlineAt);
    try {
      return await once();
    } catch (error) {
      if (!(error instanceof ModelGlitchError) || request.signal?.aborted) throw error;
      options.onRetry?.({ attempt: 1, delayMs: 0, error, operation: "generate", nudged: true });
      const nudged: GenerateRequest = {
        ...request,
        messages: [...request.messages, { role: "user", text: nudgeText(error) }],
      };
      const response = await run(
        "generate",
        () => model.generate(nudged),
        request.signal,
        request.deadlineAt,
      ).catch((second: unknown) => {
        // Both answers were billed; the error that goes up carries both.
        if (second instanceof ModelOutputError) {
          const total = sumUsage(error.details?.usage, second.details?.usage);
          if (total && second.details) second.details.usage = total;
        }
        throw second;
      });
      const failed = error.details?.usage;
      return isUsage(failed) ? { ...response, usage: addUsage(failed, response.usage) } : response;
    }
  }

  return {
    get name() {
      return model.name;
    },
    get offline() {
      return model.offline;
    },
    generate,
    embed: (request: EmbedRequest): Promise<number[][]> =>
      run("embed", () => model.embed(request), request.signal),
  };
}

/** Sleeps, but wakes with the original error as soon as the step's deadline aborts. */
async function abortableSleep(
  sleep: (ms: number) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
  error: unknown,
): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) throw error;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(error);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms), aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

function isUsage(value: unknown): value is Usage {
  return UsageSchema.safeParse(value).success;
}

function sumUsage(a: unknown, b: unknown): Usage | undefined {
  if (isUsage(a) && isUsage(b)) return addUsage(a, b);
  return isUsage(b) ? b : isUsage(a) ? a : undefined;
}

import {
  errorMessage,
  FerretError,
  ModelOutputError,
  ModelUnavailableError,
  TokenLimitError,
} from "../domain/errors.js";
import type { Usage } from "../domain/results.js";

/**
 * ModelUnavailableError with what the provider told us about when to come back. Still an
 * instance of ModelUnavailableError, so retry and fallback treat it as such; `retryable` is
 * false when no wait helps (a spent daily quota, a retired or unknown model), which still
 * diverts the investigation to the offline model but skips the pointless retries.
 */
export class ProviderUnavailableError extends ModelUnavailableError {
  readonly httpStatus: number | undefined;
  /** From google.rpc.RetryInfo when the provider sent one (typically on 429). */
  readonly retryAfterMs: number | undefined;
  /** Why no retry helps, when none does. */
  readonly final: "daily_quota" | "model_not_found" | "request_rejected" | undefined;
  constructor(
    message: string,
    options: {
      httpStatus?: number;
      retryAfterMs?: number;
      cause?: unknown;
      final?: "daily_quota" | "model_not_found" | "request_rejected";
    },
  ) {
    super(message, options.cause, { retryable: options.final === undefined });
    this.httpStatus = options.httpStatus;
    this.retryAfterMs = options.retryAfterMs;
    this.final = options.final;
  }
}

/**
 * Gemini refused a request ferret built (400 INVALID_ARGUMENT that is neither a token limit nor
 * a bad key): a ferret bug, not the user's input and not an outage. Nothing the same process
 * sends next will fix it, so it is not retried; it is still a ModelUnavailableError, so the
 * investigation carries on with the offline model instead of failing, and whoever logs the
 * fallback can tell it apart (`ferretBug`) and report it as the bug it is.
 */
export class RequestRejectedError extends ProviderUnavailableError {
  readonly ferretBug = true;
  readonly providerMessage: string;
  constructor(message: string, providerMessage: string, cause: unknown) {
    super(message, { httpStatus: 400, cause, final: "request_rejected" });
    this.providerMessage = providerMessage;
  }
}

/**
 * A passing glitch of the model's answer (a malformed function call, an empty STOP, finish
 * reason OTHER): the same request usually succeeds when asked again with a nudge. Still a
 * ModelOutputError, so callers that do not retry treat it as a bad answer.
 */
export class ModelGlitchError extends ModelOutputError {
  readonly glitch: "malformed_function_call" | "too_many_tool_calls" | "empty_answer" | "other";
  constructor(
    message: string,
    glitch: ModelGlitchError["glitch"],
    details: Record<string, unknown> & { usage?: Usage },
  ) {
    super(message, { ...details, glitch });
    this.glitch = glitch;
  }
}

/** What we could read out of a provider error, whatever its wrapping. */
export interface ProviderErrorInfo {
  httpStatus: number | undefined;
  /** google.rpc status name, e.g. INVALID_ARGUMENT, RESOURCE_EXHAUSTED. */
  providerStatus: string | undefined;
  message: string;
  retryAfterMs: number | undefined;
  /** google.rpc.QuotaFailure violations' quotaId / quotaMetric, when the provider sent them. */
  quotaIds: string[];
}

const UNAVAILABLE_HTTP = new Set([408, 429, 499, 500, 502, 503, 504]);
const UNAVAILABLE_STATUS = new Set([
  "RESOURCE_EXHAUSTED",
  "UNAVAILABLE",
  "DEADLINE_EXCEEDED",
  "INTERNAL",
  "ABORTED",
]);
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/**
 * Maps whatever the provider SDK threw to one of our typed errors, so every caller above the
 * adapter decides on `code`/`retryable`, never on provider strings:
 * - token-limit 400s → TokenLimitError (with the numbers when the message has them),
 * - 408/429/5xx, network failures, timeouts → ModelUnavailableError (retryable),
 * - a 429 on a per-day quota → ModelUnavailableError that is not retried,
 * - 404 (retired or unknown model) → ModelUnavailableError that is not retried, so the
 *   offline fallback still finishes the investigation,
 * - 401/403 and "API key not valid" → non-retryable "config" (wrong key, missing IAM),
 * - any other 400 INVALID_ARGUMENT → RequestRejectedError: ferret built a request the provider
 *   refuses (its bug), not retried, but the offline fallback still finishes the investigation,
 * - other 4xx → non-retryable "invalid_input",
 * - anything the SDK raised before sending → non-retryable "config".
 * FerretErrors (e.g. the adapter's own ModelOutputError) pass through unchanged.
 */
export function classifyProviderError(error: unknown, provider = "Gemini"): FerretError {
  if (error instanceof FerretError) return error;
  const network = networkFailure(error);
  if (network) return new ProviderUnavailableError(`${provider} unreachable: ${network}`, { cause: error });

  const info = providerErrorInfo(error);
  const { httpStatus, providerStatus, message } = info;
  const label = [httpStatus, providerStatus].filter((part) => part !== undefined).join(" ");
  const described = `${provider} ${label ? `${label}: ` : ""}${message}`;

  const limit = parseTokenLimit(message);
  if (limit && (httpStatus === undefined || httpStatus === 400)) {
    return new TokenLimitError(described, limit.inputTokens, limit.maxTokens, error);
  }
  if ((httpStatus === 429 || providerStatus === "RESOURCE_EXHAUSTED") && info.quotaIds.some(isDailyQuota)) {
    // A per-day quota comes back tomorrow, not in 37 s: waiting only burns the step's deadline.
    return new ProviderUnavailableError(`${described} (daily quota: ${info.quotaIds.join(", ")})`, {
      httpStatus: httpStatus ?? 429,
      cause: error,
      final: "daily_quota",
    });
  }
  if (httpStatus === 404 || providerStatus === "NOT_FOUND") {
    // Both backends answer a retired or misspelt model id with 404; nothing else we call is a 404.
    return new ProviderUnavailableError(
      `${described} — the model id is retired or unknown; set FERRET_GEMINI_MODEL / model.roles to a current model`,
      { httpStatus: 404, cause: error, final: "model_not_found" },
    );
  }
  if (
    (httpStatus !== undefined && (UNAVAILABLE_HTTP.has(httpStatus) || httpStatus >= 500)) ||
    (providerStatus !== undefined && UNAVAILABLE_STATUS.has(providerStatus))
  ) {
    return new ProviderUnavailableError(described, {
      ...(httpStatus !== undefined ? { httpStatus } : {}),
      ...(info.retryAfterMs !== undefined ? { retryAfterMs: info.retryAfterMs } : {}),
      cause: error,
    });
  }
  const details = { httpStatus, providerStatus, providerMessage: message };
  // The Developer API answers a bad key with 400 INVALID_ARGUMENT; it is still configuration.
  if (httpStatus === 401 || httpStatus === 403 || /API key not valid|API_KEY_INVALID/i.test(message)) {
    return new FerretError("config", described, { retryable: false, cause: error, details });
  }
  if (httpStatus === 400 && (providerStatus === undefined || providerStatus === "INVALID_ARGUMENT")) {
    return new RequestRejectedError(
      `${described} — ferret built a request ${provider} refuses: a ferret bug (please report it), not a problem with the finding or the provider`,
      message,
      error,
    );
  }
  if (httpStatus !== undefined && httpStatus >= 400) {
    return new FerretError("invalid_input", described, { retryable: false, cause: error, details });
  }
  return new FerretError("config", `${provider} call failed before reaching the provider: ${message}`, {
    retryable: false,
    cause: error,
    details,
  });
}

/** True for our TokenLimitError and for raw provider errors that classify as one. */
export function isTokenLimitError(error: unknown): boolean {
  if (error instanceof TokenLimitError) return true;
  if (error instanceof FerretError) return error.code === "token_limit";
  return classifyProviderError(error) instanceof TokenLimitError;
}

const TOKEN_LIMIT_PATTERNS: Array<{ re: RegExp; input?: number; max: number }> = [
  // Gemini Developer API (and Vertex on some models):
  // "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)."
  // Vertex also drops the count and/or the parentheses:
  // "The input token count exceeds the maximum number of tokens allowed 1048576."
  {
    re: /input token count\s*\(?(\d+)?\)?\s*exceeds the maximum number of tokens allowed\s*\(?(\d+)\)?/i,
    input: 1,
    max: 2,
  },
  // Vertex AI: "Unable to submit request because the input token count is 1251952 but model
  // only supports up to 1048576. Reduce the input token count and try again."
  { re: /input token count is (\d+) but (?:the )?model only supports up to (\d+)/i, input: 1, max: 2 },
];

export function parseTokenLimit(message: string): { inputTokens?: number; maxTokens?: number } | undefined {
  for (const { re, input, max } of TOKEN_LIMIT_PATTERNS) {
    const match = re.exec(message);
    if (!match) continue;
    const inputTokens = input !== undefined && match[input] ? Number(match[input]) : undefined;
    const maxTokens = match[max] ? Number(match[max]) : undefined;
    return {
      ...(inputTokens !== undefined ? { inputTokens } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
    };
  }
  return undefined;
}

/**
 * @google/genai's ApiError carries the HTTP status and, as its message, the JSON error body
 * ({"error":{code,message,status,details}}; Vertex sometimes wraps it in an array, and
 * proxies sometimes nest a whole body as the message). This digs the innermost one out.
 */
export function providerErrorInfo(error: unknown): ProviderErrorInfo {
  const record = asRecord(error);
  let httpStatus = httpStatusField(record, "status") ?? httpStatusField(record, "code");
  let providerStatus: string | undefined;
  let retryAfterMs: number | undefined;
  const quotaIds: string[] = [];
  let message = errorMessage(error);
  for (let depth = 0; depth < 3; depth++) {
    const body = errorBody(message);
    if (!body) break;
    httpStatus = httpStatusField(body, "code") ?? httpStatus;
    const status = body.status;
    if (typeof status === "string" && /^[A-Z_]+$/.test(status)) providerStatus = status;
    retryAfterMs = retryDelayOf(body.details) ?? retryAfterMs;
    quotaIds.push(...quotaIdsOf(body.details));
    if (typeof body.message !== "string") break;
    message = body.message;
  }
  return { httpStatus, providerStatus, message, retryAfterMs, quotaIds };
}

function errorBody(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  return asRecord(asRecord(first)?.error);
}

/** google.rpc.RetryInfo.retryDelay is a Duration string such as "37s" or "1.500s". */
function retryDelayOf(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const record = asRecord(detail);
    const type = record?.["@type"];
    const delay = record?.retryDelay;
    if (typeof type === "string" && type.endsWith("google.rpc.RetryInfo") && typeof delay === "string") {
      const match = /^(\d+(?:\.\d+)?)s$/.exec(delay);
      if (match) return Math.round(Number(match[1]) * 1000);
    }
  }
  return undefined;
}

/** google.rpc.QuotaFailure.violations[].quotaId (Gemini API) or quotaMetric, e.g. "GenerateRequestsPerDayPerProjectPerModel-FreeTier". */
function quotaIdsOf(details: unknown): string[] {
  if (!Array.isArray(details)) return [];
  const ids: string[] = [];
  for (const detail of details) {
    const record = asRecord(detail);
    const type = record?.["@type"];
    if (typeof type !== "string" || !type.endsWith("google.rpc.QuotaFailure")) continue;
    const violations = record?.violations;
    if (!Array.isArray(violations)) continue;
    for (const violation of violations) {
      const v = asRecord(violation);
      const id = v?.quotaId ?? v?.quotaMetric;
      if (typeof id === "string") ids.push(id);
    }
  }
  return ids;
}

/** Quota ids name their window: "...PerDay..." resets at midnight Pacific, not within a step. */
function isDailyQuota(id: string): boolean {
  return /per_?day/i.test(id);
}

function networkFailure(error: unknown): string | undefined {
  const record = asRecord(error);
  if (!record) return undefined;
  const name = record.name;
  if (name === "AbortError" || name === "TimeoutError") return "request timed out or was aborted";
  const codes = [record.code, asRecord(record.cause)?.code];
  const code = codes.find((c): c is string => typeof c === "string" && NETWORK_CODES.has(c));
  if (code) return code;
  if (error instanceof TypeError && /fetch failed|network/i.test(error.message)) return error.message;
  // A truncated body fails JSON parsing in the SDK; the same request may well succeed.
  if (error instanceof SyntaxError && /JSON/i.test(error.message))
    return `unreadable response (${error.message})`;
  return undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** Only HTTP-looking numbers: a gRPC code (e.g. 14) in the same field must not pass for one. */
function httpStatusField(record: Record<string, unknown> | undefined, key: string): number | undefined {
  const value = record?.[key];
  return typeof value === "number" && Number.isInteger(value) && value >= 100 && value <= 599
    ? value
    : undefined;
}

import { tagged } from "../errors.js";
import { isInt, isList, isMap, isNumber, numberValue, typeName, type WfValue } from "../values.js";

function tagsOf(error: WfValue): string[] {
  if (!isMap(error)) return [];
  const tags = error.get("tags") ?? null;
  return isList(tags) ? tags.filter((t): t is string => typeof t === "string") : [];
}

function httpCode(error: WfValue): number | null {
  if (!isMap(error) || !tagsOf(error).includes("HttpError")) return null;
  const code = error.get("code");
  return code !== undefined && isNumber(code) ? numberValue(code) : null;
}

/** http.default_retry_predicate: 429, 502, 503, 504, ConnectionError, ConnectionFailedError, TimeoutError. */
export function defaultRetryPredicate(error: WfValue): boolean {
  const code = httpCode(error);
  if (code !== null) return [429, 502, 503, 504].includes(code);
  const tags = tagsOf(error);
  return ["ConnectionError", "ConnectionFailedError", "TimeoutError"].some((t) => tags.includes(t));
}

/** http.default_retry_predicate_non_idempotent: only 429, 503 and ConnectionFailedError. */
export function nonIdempotentRetryPredicate(error: WfValue): boolean {
  const code = httpCode(error);
  if (code !== null) return code === 429 || code === 503;
  return tagsOf(error).includes("ConnectionFailedError");
}

export interface Backoff {
  maxRetries: number;
  initialDelayS: number;
  maxDelayS: number;
  multiplier: number;
}

export function checkBackoff(
  maxRetries: WfValue,
  initial: WfValue,
  max: WfValue,
  multiplier: WfValue,
): Backoff {
  if (!isInt(maxRetries) || maxRetries < 0) {
    throw tagged("TypeError", `retry max_retries must be a non-negative int, got ${typeName(maxRetries)}`);
  }
  const positive = (v: WfValue, what: string): number => {
    if (!isNumber(v) || numberValue(v) < 0)
      throw tagged("TypeError", `retry ${what} must be a non-negative number`);
    return numberValue(v);
  };
  return {
    maxRetries,
    initialDelayS: positive(initial, "initial_delay"),
    maxDelayS: positive(max, "max_delay"),
    multiplier: positive(multiplier, "multiplier"),
  };
}

/** Delay before retry number `retry` (0 = first retry): initial * multiplier^retry, capped at max. */
export function backoffDelayMs(backoff: Backoff, retry: number): number {
  return Math.min(backoff.initialDelayS * backoff.multiplier ** retry, backoff.maxDelayS) * 1000;
}

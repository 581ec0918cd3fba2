import { ConfigError, errorMessage, FerretError, NotFoundError, StorageError } from "../../domain/errors.js";
import { QueryFailedError, QueryTimeoutError } from "../../sql/query-errors.js";
import type { ErrorProto } from "./resources.js";

/**
 * The dry run says the statement would scan more than the cap allows. Retrying the same
 * statement scans the same bytes; only a narrower one (time window, columns) can pass.
 */
export class ScanCapExceededError extends FerretError {
  constructor(bytes: number | undefined, cap: number) {
    super(
      "budget_exhausted",
      `query refused: it would scan ${bytes === undefined ? "more than the cap" : formatBytes(bytes)}, above the ${formatBytes(cap)} cap (maximumBytesBilled); ` +
        "narrow the timestamp window, select fewer columns or filter on partitioned/clustered columns",
      { retryable: false, details: { bytes, cap } },
    );
  }
}

export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** Reasons (ErrorProto.reason) where the same request can succeed later. */
const RETRYABLE_REASONS = new Set([
  "backendError",
  "internalError",
  "rateLimitExceeded",
  "userRateLimitExceeded",
  "quotaExceeded",
  "jobRateLimitExceeded",
  "jobBackendError",
  "jobInternalError",
  "tableUnavailable",
]);
/** The statement itself is wrong or too heavy: a corrected statement may pass. */
const QUERY_REASONS = new Set(["invalidQuery", "invalid", "responseTooLarge", "resourcesExceeded"]);
/** The deployment is wrong (IAM, billing); no retry or rewrite helps. */
const CONFIG_REASONS = new Set(["accessDenied", "billingNotEnabled", "blocked", "invalidUser"]);

interface ApiErrorLike {
  code?: unknown;
  errors?: unknown;
  message?: unknown;
}

function errorsOf(error: ApiErrorLike): ErrorProto[] {
  return Array.isArray(error.errors)
    ? error.errors.filter((e): e is ErrorProto => typeof e === "object" && e !== null)
    : [];
}

function shorten(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 500);
}

export interface ErrorContext {
  /** What was being done, for the message: "dry run", "read results", … */
  what: string;
  timeoutMs: number;
  maxBytesBilled: number;
}

/**
 * Maps a failed call (the client library's ApiError, which carries the HTTP status and
 * BigQuery's ErrorProtos, also for a job that finished with status.errors; or a network
 * failure) to a typed error that says whether a retry helps. The reason decides
 * before the status: BigQuery reports rate limits as 403 rateLimitExceeded.
 */
export function toWarehouseError(error: unknown, context: ErrorContext): FerretError {
  if (error instanceof FerretError) return error;
  const like: ApiErrorLike = typeof error === "object" && error !== null ? (error as ApiErrorLike) : {};
  const protos = errorsOf(like);
  const reason = protos.find((p) => p.reason)?.reason;
  const status = typeof like.code === "number" ? like.code : undefined;
  const message = shorten(protos.find((p) => p.message)?.message ?? errorMessage(error));
  return fromReason(reason, status, message, context, error);
}

function fromReason(
  reason: string | undefined,
  status: number | undefined,
  message: string,
  context: ErrorContext,
  cause: unknown,
): FerretError {
  const text = `BigQuery ${context.what}: ${message}`;
  if (reason === "bytesBilledLimitExceeded")
    return new ScanCapExceededError(undefined, context.maxBytesBilled);
  if (reason === "timeout" || (reason === "stopped" && /timed out/i.test(message)))
    return new QueryTimeoutError(context.timeoutMs);
  if (reason !== undefined && RETRYABLE_REASONS.has(reason)) return new StorageError(text, true, cause);
  if (reason !== undefined && QUERY_REASONS.has(reason)) return new QueryFailedError(message, cause);
  if (reason === "notFound" || status === 404) return new NotFoundError(text);
  if (reason !== undefined && CONFIG_REASONS.has(reason))
    return new ConfigError(`${text} (check the service account's BigQuery roles and billing)`);
  if (status === 429 || (status !== undefined && status >= 500)) return new StorageError(text, true, cause);
  if (status === 400) return new QueryFailedError(message, cause);
  if (status === 401 || status === 403) return new ConfigError(text);
  // No HTTP status at all: the connection failed (reset, DNS, timeout) before an answer.
  if (status === undefined && reason === undefined) return new StorageError(text, true, cause);
  return new StorageError(text, false, cause);
}

import { ConflictError, FerretError, NotFoundError } from "../../domain/errors.js";

/**
 * A Google REST API refused or failed a call. Retryable for rate limits, server errors and
 * network failures; not for a refusal (400, 401, 403), which the same call meets again.
 */
export class GoogleApiError extends FerretError {
  readonly status: number | undefined;
  constructor(message: string, status: number | undefined, retryable: boolean, cause?: unknown) {
    super("tool_failed", message, { retryable, cause, details: { status } });
    this.status = status;
  }
}

function statusOf(error: unknown): number | undefined {
  if (!error || typeof error !== "object") return undefined;
  const e = error as { status?: unknown; response?: { status?: unknown } };
  const status = typeof e.status === "number" ? e.status : e.response?.status;
  return typeof status === "number" ? status : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Maps a client-library error to ferret's typed errors. 409 and 412 are the APIs' answers to a
 * stale etag or fingerprint: someone changed the resource after it was read, so a fresh read
 * and a new call may succeed (ConflictError is retryable).
 */
export function googleApiError(what: string, error: unknown): FerretError {
  if (error instanceof FerretError) return error;
  const status = statusOf(error);
  const detail = `${what}: ${messageOf(error)}`;
  if (status === 404) return new NotFoundError(detail);
  if (status === 409 || status === 412)
    return new ConflictError(`${detail} (the resource changed since it was read)`);
  const retryable = status === undefined || status === 429 || status >= 500;
  return new GoogleApiError(detail, status, retryable, error);
}

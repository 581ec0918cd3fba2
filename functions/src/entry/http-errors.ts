import { errorMessage, FerretError } from "../domain/errors.js";
import { maskSecrets } from "../platform/logger.js";

export interface HttpFailure {
  status: number;
  body: { error: { code: string; message: string; retryable: boolean } };
}

/**
 * Maps errors to HTTP statuses the workflow's retry policy understands: 503 for
 * anything a retry can fix (http.default_retry retries it), 4xx for what it cannot,
 * 500 for the unexpected (not retried, so a bug fails fast and visibly).
 */
export function toHttpFailure(error: unknown): HttpFailure {
  if (error instanceof FerretError) {
    const status = error.retryable
      ? 503
      : error.code === "invalid_input"
        ? 400
        : error.code === "not_found"
          ? 404
          : error.code === "conflict"
            ? 409
            : 422;
    return {
      status,
      body: { error: { code: error.code, message: masked(error.message), retryable: error.retryable } },
    };
  }
  return {
    status: 500,
    body: { error: { code: "internal", message: masked(errorMessage(error)), retryable: false } },
  };
}

/** The caller (a workflow execution, its logs and its error state) is no place for a secret either. */
function masked(message: string): string {
  return maskSecrets(message) as string;
}

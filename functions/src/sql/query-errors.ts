import { FerretError } from "../domain/errors.js";

/**
 * The engine rejected a statement the guard let through (unknown column, type mismatch):
 * the same statement fails again, a corrected one may not.
 */
export class QueryFailedError extends FerretError {
  constructor(message: string, cause?: unknown) {
    super("invalid_input", `query failed: ${message}`, { retryable: false, cause });
  }
}

/** The statement ran past its time budget; only a narrower query (window, filters) helps. */
export class QueryTimeoutError extends FerretError {
  constructor(timeoutMs: number) {
    super(
      "budget_exhausted",
      `query timed out after ${timeoutMs} ms; narrow the time window or add filters`,
      {
        retryable: false,
        details: { timeoutMs },
      },
    );
  }
}

import { FerretError } from "../../domain/errors.js";

/**
 * The history has no point where its head can be summarized: one message, or nothing
 * before the newest tool exchange but an earlier summary. Compressing again would change
 * nothing, so the caller must stop instead of retrying.
 */
export class HistoryTooSmallError extends FerretError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("token_limit", message, { retryable: false, details });
  }
}

/**
 * The step stopped because its context is (nearly) full; its history is saved and waits
 * for the compressor. Not a failure of the step: the workflow compresses and runs it again.
 */
export class ContextPressureError extends FerretError {
  readonly stepId: string;
  constructor(stepId: string, message: string, details?: Record<string, unknown>) {
    super("token_limit", message, { retryable: false, details });
    this.stepId = stepId;
  }
}

/** Compression cannot help any more (budget of compressions spent, or nothing to split). */
export class ContextExhaustedError extends FerretError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("token_limit", message, { retryable: false, details });
  }
}

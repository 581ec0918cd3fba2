/**
 * Typed errors. Every error ferret raises on purpose says whether retrying the same call
 * could help, so the workflow's retry policy and the HTTP handlers can map it to a status
 * (retryable → 503, not retryable → 4xx/422) without string matching.
 */
export type ErrorCode =
  | "invalid_input"
  | "config"
  | "not_found"
  | "conflict"
  | "model_output"
  | "model_unavailable"
  | "token_limit"
  | "unknown_tool"
  | "tool_input"
  | "tool_failed"
  | "approval_required"
  | "sql_refused"
  | "budget_exhausted"
  | "deadline"
  | "storage"
  | "chat"
  | "workflow_callback";

export class FerretError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { retryable: boolean; cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable;
    this.details = options.details;
  }
}

export class InvalidInputError extends FerretError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("invalid_input", message, { retryable: false, details });
  }
}

export class ConfigError extends FerretError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("config", message, { retryable: false, details });
  }
}

export class NotFoundError extends FerretError {
  constructor(message: string) {
    super("not_found", message, { retryable: false });
  }
}

export class ConflictError extends FerretError {
  constructor(message: string) {
    super("conflict", message, { retryable: true });
  }
}

/** The model answered, but not in the shape we asked for (after the repair attempt). */
export class ModelOutputError extends FerretError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("model_output", message, { retryable: false, details });
  }
}

/** Rate limits, 5xx, network: the same request may succeed later. */
export class ModelUnavailableError extends FerretError {
  /** `retryable: false` for an unavailability no retry can fix (retired model, daily quota spent). */
  constructor(message: string, cause?: unknown, options: { retryable?: boolean } = {}) {
    super("model_unavailable", message, { retryable: options.retryable ?? true, cause });
  }
}

/** The request exceeded the model's context window; retrying only helps after compression. */
export class TokenLimitError extends FerretError {
  readonly inputTokens: number | undefined;
  readonly maxTokens: number | undefined;
  constructor(message: string, inputTokens?: number, maxTokens?: number, cause?: unknown) {
    super("token_limit", message, { retryable: false, cause, details: { inputTokens, maxTokens } });
    this.inputTokens = inputTokens;
    this.maxTokens = maxTokens;
  }
}

export class UnknownToolError extends FerretError {
  constructor(name: string, allowed: readonly string[]) {
    super(
      "unknown_tool",
      `tool "${name}" is not in the registry (allowed: ${allowed.join(", ") || "none"})`,
      {
        retryable: false,
        details: { name, allowed },
      },
    );
  }
}

export class ToolInputError extends FerretError {
  constructor(tool: string, message: string) {
    super("tool_input", `invalid input for tool "${tool}": ${message}`, { retryable: false });
  }
}

export class ToolFailedError extends FerretError {
  constructor(tool: string, message: string, retryable: boolean, cause?: unknown) {
    super("tool_failed", `tool "${tool}" failed: ${message}`, { retryable, cause });
  }
}

/**
 * An acting tool call reached the tool layer without a person's approval for exactly that
 * call. Retrying the same call cannot help: only an approval can.
 */
export class ApprovalRequiredError extends FerretError {
  constructor(tool: string) {
    super(
      "approval_required",
      `tool "${tool}" acts on the environment and runs only after a person approves this exact call`,
      {
        retryable: false,
      },
    );
  }
}

export class SqlRefusedError extends FerretError {
  constructor(reason: string) {
    super("sql_refused", `query refused: ${reason}`, { retryable: false });
  }
}

export class StorageError extends FerretError {
  constructor(message: string, retryable: boolean, cause?: unknown) {
    super("storage", message, { retryable, cause });
  }
}

/** Posting to Slack (or another chat sink) failed; `retryable` says whether a later attempt can succeed. */
export class ChatError extends FerretError {
  constructor(
    message: string,
    retryable: boolean,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super("chat", message, { retryable, cause: options.cause, details: options.details });
  }
}

/**
 * A step's (or the investigation's) deadline passed: the work was abandoned on purpose.
 * Retrying the same call cannot give it more time.
 */
export class DeadlineExceededError extends FerretError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("deadline", message, { retryable: false, details });
  }
}

/**
 * A budget (tokens, bytes scanned) would be exceeded: the work is refused before it runs. A
 * retry spends the same budget, so it is never retryable; a narrower request may fit.
 */
export class BudgetExceededError extends FerretError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("budget_exhausted", message, { retryable: false, details });
  }
}

export function isRetryable(error: unknown): boolean {
  return error instanceof FerretError ? error.retryable : false;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A Workflows callback (the approval's wake-up) that did not go through. */
export class WorkflowCallbackError extends FerretError {
  constructor(message: string, retryable: boolean) {
    super("workflow_callback", message, { retryable });
  }
}

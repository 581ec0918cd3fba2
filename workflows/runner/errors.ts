import { toJs, type WfMap, type WfValue } from "./values.js";

/**
 * A construct that real Workflows accepts but this runner does not implement.
 * Thrown by loadWorkflow so that an unsupported feature fails before any step runs,
 * instead of being skipped or half-executed.
 */
export class UnsupportedConstructError extends Error {
  override readonly name = "UnsupportedConstructError";
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
  }
}

/**
 * A definition that Workflows itself would refuse to deploy (unknown jump target,
 * write to an unshared variable in a parallel branch, bad argument names...).
 */
export class InvalidWorkflowError extends Error {
  override readonly name = "InvalidWorkflowError";
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
  }
}

/** The failure of an execution, as a caller of runWorkflow sees it. */
export class WorkflowError extends Error {
  override readonly name = "WorkflowError";
  constructor(
    /** The Workflows error value (usually a map with `message` and `tags`), as plain JS. */
    readonly payload: unknown,
    /** True when the run was stopped by RunOptions.deadlineMs rather than by a raised error. */
    readonly deadlineExceeded = false,
  ) {
    super(describePayload(payload));
  }
}

function describePayload(payload: unknown): string {
  if (typeof payload === "string") return payload;
  if (payload !== null && typeof payload === "object" && "message" in payload) {
    const tags = "tags" in payload && Array.isArray(payload.tags) ? ` [${payload.tags.join(", ")}]` : "";
    return `${String(payload.message)}${tags}`;
  }
  return JSON.stringify(payload);
}

/** Internal: an error travelling through the interpreter; try/except can catch it. */
export class RaisedError extends Error {
  constructor(readonly value: WfValue) {
    super(typeof value === "string" ? value : describePayload(toJs(value)));
  }
}

/**
 * Internal: the execution deadline passed. Deliberately not a RaisedError, because an
 * execution timeout in Workflows ends the execution and cannot be caught by `except`.
 */
export class DeadlineExceededError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`execution deadline of ${deadlineMs} ms exceeded`);
  }
}

export type ErrorTag =
  | "ConnectionError"
  | "ConnectionFailedError"
  | "HttpError"
  | "IndexError"
  | "KeyError"
  | "OSError"
  | "ParallelNestingError"
  | "RecursionError"
  | "ResourceLimitError"
  | "SystemError"
  | "TimeoutError"
  | "TypeError"
  | "UnhandledBranchError"
  | "ValueError"
  | "ZeroDivisionError";

export function errorMap(tags: ErrorTag[], message: string, extra: Record<string, WfValue> = {}): WfMap {
  const map: WfMap = new Map<string, WfValue>([
    ["message", message],
    ["tags", [...tags]],
  ]);
  for (const [k, v] of Object.entries(extra)) map.set(k, v);
  return map;
}

/** Shorthand for the common single-tag runtime errors (KeyError, TypeError, ...). */
export function tagged(tag: ErrorTag, message: string): RaisedError {
  return new RaisedError(errorMap([tag], message));
}

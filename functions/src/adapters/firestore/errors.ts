import { FerretError, StorageError } from "../../domain/errors.js";

/** gRPC status codes Firestore uses; the ones below say the same call may succeed later. */
const RETRYABLE_CODES = new Set([
  4, // DEADLINE_EXCEEDED
  8, // RESOURCE_EXHAUSTED (quota, hot spot): retry with backoff
  10, // ABORTED (transaction contention)
  13, // INTERNAL
  14, // UNAVAILABLE
  409, // ABORTED as an HTTP status when the client runs over REST
]);
export const INVALID_ARGUMENT = 3;
export const ALREADY_EXISTS = 6;
export const NOT_FOUND = 5;

export function grpcCode(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "number" ? error.code : undefined;
}

/** Turns whatever the client threw into a FerretError; ferret's own errors pass through. */
export function toStorageError(error: unknown, what: string): FerretError {
  if (error instanceof FerretError) return error;
  const code = grpcCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return new StorageError(
    `Firestore ${what} failed: ${message}`,
    code !== undefined && RETRYABLE_CODES.has(code),
    error,
  );
}

/**
 * A transaction whose commit was retried after its first attempt landed unseen, or never
 * landed: the outcome is unknown, so retrying the whole (idempotent) operation is right.
 */
export function ambiguousCommit(error: unknown): StorageError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (
    grpcCode(error) !== INVALID_ARGUMENT ||
    !/transaction (is |has )?(invalid|closed|expired)/i.test(message)
  ) {
    return undefined;
  }
  return new StorageError(`Firestore transaction outcome unknown: ${message}`, true, error);
}

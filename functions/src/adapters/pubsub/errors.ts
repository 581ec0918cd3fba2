import { FerretError, StorageError } from "../../domain/errors.js";

/**
 * gRPC codes after which the same publish may succeed: the ones the client library itself
 * retries (it gave up only because its own deadline ran out).
 */
const RETRYABLE_CODES = new Set([
  1, // CANCELLED
  2, // UNKNOWN
  4, // DEADLINE_EXCEEDED
  8, // RESOURCE_EXHAUSTED
  10, // ABORTED
  13, // INTERNAL
  14, // UNAVAILABLE
]);
export const ALREADY_EXISTS = 6;

/**
 * A message the broker did not accept. A StorageError (code "storage"), so callers and the
 * HTTP mapping treat it like any other persistence failure: retry when `retryable`.
 */
export class PublishError extends StorageError {
  readonly topic: string;
  constructor(topic: string, message: string, retryable: boolean, cause?: unknown) {
    super(`publish to ${topic} failed: ${message}`, retryable, cause);
    this.topic = topic;
  }
}

export function grpcCode(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "number" ? error.code : undefined;
}

export function toPublishError(error: unknown, topic: string): FerretError {
  if (error instanceof FerretError) return error;
  const code = grpcCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return new PublishError(topic, message, code !== undefined && RETRYABLE_CODES.has(code), error);
}

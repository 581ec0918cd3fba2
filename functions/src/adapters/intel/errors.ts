import { FerretError } from "../../domain/errors.js";

/**
 * An online intel provider did not answer usefully. `retryable` says whether the same
 * lookup can succeed later (rate limit, 5xx, timeout) or not (bad key, refused request).
 */
export class IntelProviderError extends FerretError {
  readonly provider: string;
  constructor(
    provider: string,
    message: string,
    retryable: boolean,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super("tool_failed", `${provider}: ${message}`, {
      retryable,
      cause: options.cause,
      details: { provider, ...options.details },
    });
    this.provider = provider;
  }
}

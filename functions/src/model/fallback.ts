import type { BriefRole } from "../agent/briefs.js";
import { errorMessage, ModelUnavailableError } from "../domain/errors.js";
import type { EmbedRequest, GenerateRequest, GenerateResponse, Model } from "./port.js";

export interface FallbackReason {
  from: string;
  to: string;
  /** The role whose call failed first, or "embed". */
  role: BriefRole | "embed";
  message: string;
  error: unknown;
}

export interface FallbackOptions {
  /** Fires once, when the first call is diverted. */
  onFallback?: (reason: FallbackReason) => void;
  /**
   * Embeddings from another model live in another vector space: mixing them with stored
   * memories would make similarity meaningless, so by default embed never falls back.
   */
  fallbackEmbeddings?: boolean;
}

export interface FallbackModel extends Model {
  readonly fellBack: boolean;
  readonly reason: FallbackReason | undefined;
  /**
   * Switches to the fallback now, for failures the wrapper cannot see: an LLM whose output
   * still breaks its schema after the repair call is as unusable as one that is down.
   * Returns false when it had already switched.
   */
  divert(error: unknown, role: BriefRole | "embed"): boolean;
}

/**
 * Serves generate calls from `fallback` once `primary` is unavailable (after its own
 * retries, sized to the step's deadline), and keeps doing so for the rest of this wrapper's
 * request: a step should not flap between a model and a playbook from one round to the next.
 * A wrapper watches one request of one investigation (model/choice.ts); how long the
 * investigation then stays offline is recorded on it (offlineUntil), not kept in the instance.
 * Only ModelUnavailableError diverts; a token-limit or output error is the caller's to handle.
 */
export function withFallback(primary: Model, fallback: Model, options: FallbackOptions = {}): FallbackModel {
  let reason: FallbackReason | undefined;

  const divert = (error: unknown, role: BriefRole | "embed"): boolean => {
    if (reason) return false;
    reason = { from: primary.name, to: fallback.name, role, message: errorMessage(error), error };
    options.onFallback?.(reason);
    return true;
  };

  return {
    get name() {
      return reason ? fallback.name : primary.name;
    },
    get offline() {
      return reason ? fallback.offline : primary.offline;
    },
    get fellBack() {
      return reason !== undefined;
    },
    get reason() {
      return reason;
    },
    divert,
    async generate(request: GenerateRequest): Promise<GenerateResponse> {
      if (reason) return fallback.generate(request);
      try {
        return await primary.generate(request);
      } catch (error) {
        if (!(error instanceof ModelUnavailableError)) throw error;
        divert(error, request.brief.role);
        return fallback.generate(request);
      }
    },
    async embed(request: EmbedRequest): Promise<number[][]> {
      if (!options.fallbackEmbeddings) return primary.embed(request);
      if (reason) return fallback.embed(request);
      try {
        return await primary.embed(request);
      } catch (error) {
        if (!(error instanceof ModelUnavailableError)) throw error;
        divert(error, "embed");
        return fallback.embed(request);
      }
    },
  };
}

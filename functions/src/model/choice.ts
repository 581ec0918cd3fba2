import { ModelUnavailableError } from "../domain/errors.js";
import { type FallbackModel, type FallbackOptions, withFallback } from "./fallback.js";
import type { Model } from "./port.js";

/** The models a process has: the configured one and the offline playbook model behind it. */
export interface ModelSet {
  /** Gemini (with retries) when configured, otherwise the offline model itself. */
  primary: Model;
  /** The offline playbook model; absent where a process has none to offer. */
  offline?: Model;
  /** model.fallbackToOffline: whether an unavailable primary hands over to the offline model. */
  fallbackToOffline: boolean;
}

export interface ModelChoice {
  model: Model;
  /** The fallback wrapper watching this request, when the primary may still fail over. */
  fallback?: FallbackModel;
}

/** What chooseModel reads of an investigation. */
export interface FallbackState {
  fellBackToOffline?: boolean;
  offlineUntil?: string;
}

/**
 * Whether the offline model serves this investigation now: after a failure waiting cannot cure,
 * for the rest of the investigation; after a passing one (a burst of 429s, an outage), until
 * `offlineUntil`, so one bad minute does not cost every later step of it its LLM.
 */
export function servedOffline(investigation: FallbackState, now: Date): boolean {
  if (!investigation.fellBackToOffline) return false;
  return investigation.offlineUntil === undefined || now.getTime() < Date.parse(investigation.offlineUntil);
}

/**
 * Whether waiting can cure a failure that diverted a request: a retryable unavailability can;
 * a spent daily quota, a retired model, a refused request or output that broke its schema twice
 * cannot (model/errors.ts).
 */
export function transientFailure(error: unknown): boolean {
  return error instanceof ModelUnavailableError && error.retryable;
}

/**
 * Which model serves a role (planner, step executor, reflector, concluder, the log analyst) for
 * one investigation. The only place that decides it: while an investigation is served offline
 * (servedOffline) all its roles and its sub-agent are, so its steps do not flip between brains
 * within that time; otherwise a fresh fallback wrapper watches this request. Which Gemini model
 * id a role then gets (main or lite) is its role setting (roleModelId).
 */
export function chooseModel(
  models: ModelSet,
  investigation?: FallbackState,
  options: Pick<FallbackOptions, "onFallback"> = {},
  now: Date = new Date(),
): ModelChoice {
  const { primary, offline } = models;
  if (!offline) return { model: primary };
  if (primary.offline || (investigation && servedOffline(investigation, now))) return { model: offline };
  if (!models.fallbackToOffline) return { model: primary };
  const fallback = withFallback(primary, offline, options);
  return { model: fallback, fallback };
}

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

/**
 * Which model serves a role (planner, step executor, reflector, concluder, the log analyst) for
 * one investigation. The only place that decides it: once an investigation fell back to the
 * offline model it stays there — its main roles and its sub-agent alike — so its steps do
 * not flip between brains; otherwise a fresh fallback wrapper watches this request. Which
 * Gemini model id a role then gets (main or lite) is its role setting (roleModelId).
 */
export function chooseModel(
  models: ModelSet,
  investigation?: { fellBackToOffline?: boolean },
  options: Pick<FallbackOptions, "onFallback"> = {},
): ModelChoice {
  const { primary, offline } = models;
  if (!offline) return { model: primary };
  if (primary.offline || investigation?.fellBackToOffline) return { model: offline };
  if (!models.fallbackToOffline) return { model: primary };
  const fallback = withFallback(primary, offline, options);
  return { model: fallback, fallback };
}

import type { Step } from "./plan.js";
import type { PlannedCallsMode } from "./policy.js";

/**
 * The step as the step executor receives it. Under `executor` the planned calls are dropped, so the
 * step executor model chooses and reads every call itself: the naive plan-execute loop the bench
 * compares ferret against, expressed as configuration rather than a second code path.
 */
export function stepForExecution(step: Step, mode: PlannedCallsMode): Step {
  if (mode === "run" || step.calls === undefined) return step;
  const { calls: _dropped, ...rest } = step;
  return rest;
}

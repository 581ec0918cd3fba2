import type { Investigation } from "../domain/investigation.js";
import type { NextAction } from "../domain/next-action.js";
import { compressStep, MAX_COMPRESSIONS_PER_STEP } from "./compression.js";
import type { AppDeps } from "./deps.js";
import { advance, finish, runStep, type StepOutcome, startPlanning } from "./operations.js";

/**
 * Runs an investigation in this process with the same sequence the Workflows YAML
 * drives (plan → waves → advance → conclude). For unit tests and benchmarks of the agent;
 * the demo and the end-to-end tests go through the workflow runner and the functions.
 */
export async function driveInvestigation(id: string, deps: AppDeps): Promise<Investigation> {
  let next: NextAction = await startPlanning(id, deps);
  for (let wave = 1; ; wave++) {
    switch (next.kind) {
      case "execute":
        await Promise.all(next.stepIds.map((stepId) => runStepCompressing(id, stepId, deps)));
        next = await advance(id, wave, next.stepIds, deps);
        break;
      case "conclude":
        return finish(id, "conclude", next.reason, deps);
      case "needs_human":
        return finish(id, "needs_human", next.reason, deps);
      case "reflect":
        // advance() consumes "reflect" itself; seeing it here means a bug in the decision code.
        throw new Error(`unexpected next action "reflect" outside advance()`);
    }
  }
}

/** The workflow's run_step: while the step reports context pressure, compress and run it again. */
async function runStepCompressing(id: string, stepId: string, deps: AppDeps): Promise<StepOutcome> {
  for (let compressions = 0; ; compressions++) {
    const outcome = await runStep(id, stepId, deps);
    if (outcome.status !== "context_pressure" || compressions >= MAX_COMPRESSIONS_PER_STEP) return outcome;
    await compressStep(id, stepId, deps);
  }
}

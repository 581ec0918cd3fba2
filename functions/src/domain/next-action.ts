import { z } from "zod";
import type { Counters } from "./investigation.js";
import type { Plan, Step } from "./plan.js";
import type { AgentPolicy } from "./policy.js";

/**
 * What the investigation does next. This is the only place that decides it; the planner
 * and reflector functions call it, and the Workflows YAML only switches on its `kind`.
 */
export const NextActionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("execute"), stepIds: z.array(z.string()) }),
  z.object({ kind: z.literal("reflect"), stepIds: z.array(z.string()) }),
  z.object({ kind: z.literal("conclude"), reason: z.string() }),
  z.object({ kind: z.literal("needs_human"), reason: z.string() }),
]);
export type NextAction = z.infer<typeof NextActionSchema>;

export interface DecisionInput {
  plan: Plan;
  counters: Counters;
  policy: AgentPolicy;
  now: Date;
  deadlineAt: Date;
  /**
   * The wave that just finished, when the decision is taken before its reflection.
   * `allAnswered`: every step of the wave answered (none failed, none came back empty).
   */
  finishedWave?: { stepIds: readonly string[]; anyFailed: boolean; allAnswered?: boolean };
  /** The latest reflection, when one was taken after the last wave. */
  lastReflection?: { achieved: boolean; refusedForBudget: number };
}

export function readySteps(plan: Plan): Step[] {
  const status = new Map(plan.steps.map((s) => [s.id, s.status]));
  return plan.steps.filter(
    // A "running" step at decision time was interrupted (the wave already returned), so it runs again.
    (s) =>
      (s.status === "pending" || s.status === "running") &&
      s.dependsOn.every((d) => status.get(d) === "done"),
  );
}

export function decideNext(input: DecisionInput): NextAction {
  const { plan, counters, policy } = input;
  if (input.lastReflection?.achieved)
    return { kind: "conclude", reason: "the reflector judged the objective achieved" };
  if (input.now.getTime() >= input.deadlineAt.getTime()) {
    return {
      kind: "needs_human",
      reason: `the investigation deadline of ${policy.totalDeadlineSeconds}s passed`,
    };
  }
  const tokens = counters.usage.inputTokens + counters.usage.outputTokens;
  if (tokens >= policy.tokenBudget) {
    return {
      kind: "needs_human",
      reason: `the token budget is used up (${tokens} of ${policy.tokenBudget})`,
    };
  }
  if (counters.consecutiveFailures >= policy.maxConsecutiveFailures) {
    return { kind: "needs_human", reason: `${counters.consecutiveFailures} steps failed in a row` };
  }
  if (input.finishedWave && input.finishedWave.stepIds.length > 0 && reflectionDue(input)) {
    if (policy.foldLastReflection && !reflectionCanChangeOutcome(plan, input.finishedWave)) {
      return {
        kind: "conclude",
        reason: "every step has finished and answered; the concluder reads every result",
      };
    }
    return { kind: "reflect", stepIds: [...input.finishedWave.stepIds] };
  }
  const ready = readySteps(plan);
  if (ready.length > 0) {
    return { kind: "execute", stepIds: waveOf(ready, policy).map((s) => s.id) };
  }
  const pending = plan.steps.filter((s) => s.status === "pending");
  if (pending.length === 0) {
    if (input.lastReflection && input.lastReflection.refusedForBudget > 0) {
      return {
        kind: "needs_human",
        reason: "the reflector wanted more steps but the revision budget is used up",
      };
    }
    return { kind: "conclude", reason: "every step has finished" };
  }
  return {
    kind: "conclude",
    reason: `steps ${pending.map((s) => s.id).join(", ")} cannot run because a step they depend on failed or was cancelled`,
  };
}

/** Most steps one wave runs; reflecting after every step only makes sense one step at a time. */
export function waveWidth(policy: AgentPolicy): number {
  return policy.reflection === "every_step" ? 1 : policy.maxParallelSteps;
}

/**
 * Whether a step runs without a step executor model round: its calls are fixed in the plan and
 * the policy runs them (decision 0019). It may still hand an empty answer to the model.
 */
function runsWithoutModel(step: Step, policy: AgentPolicy): boolean {
  return policy.plannedCalls === "run" && (step.calls?.length ?? 0) > 0;
}

/**
 * The steps the next wave runs, in plan order. The width bounds the steps that need a step
 * executor model; a step whose calls the plan fixed is a query, not a model turn, so it joins
 * the wave beside them instead of waiting for a later one (decision 0053). Waiting cost a
 * reflection per extra wave, and a reflection that judged the objective met after the first
 * wave cancelled the plan's later questions unread: a cheaper run that skipped evidence. The
 * workflow's own `concurrency_limit` still bounds how many run at once. Reflecting after every
 * step keeps one step per wave.
 */
export function waveOf(ready: readonly Step[], policy: AgentPolicy): Step[] {
  if (policy.reflection === "every_step") return ready.slice(0, 1);
  const width = waveWidth(policy);
  const wave: Step[] = [];
  let withModel = 0;
  for (const step of ready) {
    if (runsWithoutModel(step, policy)) wave.push(step);
    else if (withModel < width) {
      wave.push(step);
      withModel += 1;
    }
  }
  return wave;
}

/**
 * Tokens one step may spend: an even share of what is left of the investigation's budget
 * among the steps of its wave. The budget is checked between waves; without a share, every
 * step of a wave could spend all that is left, and the wave overshoot it by its width
 * times. With it, the overshoot is at most one model call per step.
 *
 * The wave is what `decideNext` would run from this plan: its ready steps (pending, or
 * already running), at most `waveWidth`. A step that starts after a sibling finished sees a
 * slightly different set (one step fewer, or a dependent that just became ready), so its
 * share can differ a little from its siblings'; that only matters near the end of the budget.
 */
export function stepTokenAllowance(policy: AgentPolicy, counters: Counters, plan: Plan): number {
  const used = counters.usage.inputTokens + counters.usage.outputTokens;
  const wave = Math.max(waveOf(readySteps(plan), policy).length, 1);
  return Math.max(0, Math.floor((policy.tokenBudget - used) / wave));
}

/**
 * A reflection decides three things: whether the objective is met, which steps to cancel or
 * change, and which to add. With no step left to run, the first two change nothing (the
 * investigation concludes either way, and the concluder reads every result itself), so
 * only an added step could. The reflector adds one for a source that came back empty or
 * broken; when every step of the wave answered there is no such gap, and the reflection is
 * folded into the conclusion: one model call instead of two (decision 0026). What is given
 * up: a step the reflector would have added for a lead the last results surfaced (an
 * indicator no lookup covered); the concluder sees the same results and can name it as an
 * open question. `agent.foldLastReflection: false` keeps the reflection.
 */
export function reflectionCanChangeOutcome(
  plan: Plan,
  wave: NonNullable<DecisionInput["finishedWave"]>,
): boolean {
  if (wave.allAnswered !== true) return true;
  return plan.steps.some((s) => s.status === "pending" || s.status === "running");
}

function reflectionDue(input: DecisionInput): boolean {
  switch (input.policy.reflection) {
    case "every_step":
    case "every_wave":
      return true;
    case "on_error":
      return input.finishedWave?.anyFailed ?? false;
  }
}

import type { Plan, Step } from "./plan.js";
import type { AgentPolicy } from "./policy.js";
import type { StepResult } from "./results.js";

/**
 * Whether a finished step's result may settle the verdict on its own: the planner said so
 * (`decisive`), or a tool recorded a malicious intel verdict, which the verdict rules weigh
 * whatever else is found. Read from structured fields only (the plan's flag, the verdicts a
 * tool's code recorded), never from text a tool or a finding supplied.
 */
export function isDecisive(step: Step, result: StepResult): boolean {
  if (step.decisive === true) return true;
  return result.toolCalls.some((call) => call.verdicts?.some((v) => v.verdict === "malicious") ?? false);
}

/**
 * Reflect now, before the wave ends, when the step just finished is decisive and a sibling
 * is still running with model rounds ahead of it (no fixed calls): only then can an early
 * reflection save anything, by stopping that sibling before its next round. Pending steps
 * do not count: they wait for the wave's end anyway, and its reflection can cancel them at
 * no extra call. Only under `every_wave`: `every_step` already reflects after each step, and
 * `on_error` asked for reflection on failures only.
 */
export function earlyReflectionDue(
  plan: Plan,
  stepId: string,
  result: StepResult,
  policy: Pick<AgentPolicy, "reflection">,
): boolean {
  if (policy.reflection !== "every_wave") return false;
  const step = plan.steps.find((s) => s.id === stepId);
  if (!step || !isDecisive(step, result)) return false;
  return plan.steps.some((s) => s.id !== stepId && s.status === "running" && !s.calls?.length);
}

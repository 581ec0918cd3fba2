import { ContextPressureError } from "../agent/compression/errors.js";
import { askStepExecutor } from "../agent/step-executor.js";
import { createStepJournal } from "../agent/step-journal.js";
import { heldCalls } from "../domain/approval-record.js";
import { earlyReflectionDue } from "../domain/decisive.js";
import { DeadlineExceededError, errorMessage, NotFoundError } from "../domain/errors.js";
import type { Investigation } from "../domain/investigation.js";
import { stepTokenAllowance } from "../domain/next-action.js";
import type { Plan } from "../domain/plan.js";
import { stepForExecution } from "../domain/planned-calls.js";
import { type StepResult, ZERO_USAGE } from "../domain/results.js";
import { withDeadline } from "../model/deadline.js";
import { MAX_COMPRESSIONS_PER_STEP } from "./compressor.js";
import type { AppDeps } from "./deps.js";
import { reflectEarly } from "./early-reflection.js";
import { publishEvents } from "./publish.js";
import {
  commit,
  modelFields,
  offlineOnBadOutput,
  republish,
  requirePlan,
  withUsage,
} from "./roles-common.js";
import { investigationScanBudget } from "./scan-budget.js";

export interface StepOutcome {
  stepId: string;
  /**
   * context_pressure: no result yet; the history waits for the compressor, then a re-run.
   * cancelled: the plan cancelled the step before it started; nothing ran.
   */
  status: StepResult["status"] | "context_pressure" | "cancelled";
  /** False when the result already existed and this call changed nothing. */
  executed: boolean;
  reason?: string;
  /** Acting calls the step held for a person's approval (domain/approval-record.ts). */
  held?: { approvalId: string; tool: string }[];
}

export async function runStepExecutor(id: string, stepId: string, deps: AppDeps): Promise<StepOutcome> {
  const existing = await deps.store.getStepResult(id, stepId);
  if (existing) {
    await republish(deps, id, (e) => e.stepId === stepId);
    return { stepId, status: existing.status, executed: false, ...heldField(heldCalls(existing, id)) };
  }
  const inv = await deps.store.require(id);
  const plan = requirePlan(inv);
  const step = plan.steps.find((s) => s.id === stepId);
  if (!step) throw new NotFoundError(`investigation ${id} has no step "${stepId}"`);
  // An early reflection can cancel a step of the wave in flight before the step started (decision 0019).
  if (step.status === "cancelled")
    return { stepId, status: "cancelled", executed: false, reason: step.cancelReason ?? "cancelled" };
  await commit(
    deps,
    await deps.store.update(id, (current) => {
      const s = current.plan?.steps.find((x) => x.id === stepId);
      if (s?.status !== "pending") return undefined;
      return {
        investigation: {
          ...current,
          plan: {
            ...requirePlan(current),
            steps: requirePlan(current).steps.map((x) => (x.id === stepId ? { ...x, status: "running" } : x)),
          },
          updatedAt: deps.now().toISOString(),
        },
        events: [{ type: "step_started", stepId, message: `Step ${stepId}: ${step.description}` }],
      };
    }),
  );
  const prior = (await deps.store.listStepResults(id)).filter((r) => r.stepId !== stepId);
  let result: StepResult;
  try {
    result = await executeWithDeadline(deps, inv, plan, stepId, prior);
  } catch (error) {
    if (!(error instanceof ContextPressureError)) throw error;
    return { stepId, status: "context_pressure", executed: false, reason: error.message };
  }
  const recorded = await deps.store.recordStepResult(id, result, (current) => {
    // Cancelled while it ran: the step stays cancelled, and stopping is not a failure.
    const cancelled = requirePlan(current).steps.find((x) => x.id === stepId)?.status === "cancelled";
    const failed = result.status === "failed" && !cancelled;
    const base = withUsage(current, result.usage, deps.now());
    return {
      investigation: {
        ...base,
        ...modelFields(current, deps),
        plan: {
          ...requirePlan(current),
          steps: requirePlan(current).steps.map((x) =>
            x.id === stepId && !cancelled ? { ...x, status: result.status } : x,
          ),
        },
        counters: {
          ...base.counters,
          stepsExecuted: base.counters.stepsExecuted + 1,
          consecutiveFailures: failed
            ? base.counters.consecutiveFailures + 1
            : cancelled
              ? base.counters.consecutiveFailures
              : 0,
        },
      },
      events: [
        {
          type: "step_finished",
          stepId,
          message: `Step ${stepId} ${cancelled ? "stopped (cancelled)" : failed ? "failed" : "done"}: ${result.summary}`,
        },
      ],
    };
  });
  await publishEvents(deps.bus, recorded.events);
  const after = recorded.investigation.plan;
  const spent = recorded.investigation.counters.usage;
  // Past the token budget the wave's end stops the investigation; reflecting first would overspend.
  const withinBudget = spent.inputTokens + spent.outputTokens < deps.config.agent.tokenBudget;
  if (
    recorded.created &&
    after &&
    withinBudget &&
    earlyReflectionDue(after, stepId, recorded.result, deps.config.agent)
  ) {
    await reflectEarly(id, stepId, deps);
  }
  return {
    stepId,
    status: recorded.result.status,
    executed: recorded.created,
    ...heldField(heldCalls(recorded.result, id)),
  };
}

/** `held` only when a call waits: the workflow reads it with a default, and most steps hold none. */
function heldField(held: { approvalId: string; tool: string }[]): Pick<StepOutcome, "held"> {
  return held.length > 0 ? { held } : {};
}

/** The plan's reason for cancelling a step, read fresh from the store; undefined while it is wanted. */
function cancellationOf(id: string, stepId: string, deps: AppDeps): () => Promise<string | undefined> {
  return async () => {
    const step = (await deps.store.require(id)).plan?.steps.find((s) => s.id === stepId);
    return step?.status === "cancelled" ? (step.cancelReason ?? "cancelled by a reflection") : undefined;
  };
}

async function executeWithDeadline(
  deps: AppDeps,
  inv: Investigation,
  plan: Plan,
  stepId: string,
  prior: StepResult[],
): Promise<StepResult> {
  const step = plan.steps.find((s) => s.id === stepId);
  if (!step) throw new NotFoundError(`no step "${stepId}"`);
  const startedAt = deps.now().toISOString();
  const limitMs = deps.config.agent.stepDeadlineSeconds * 1000;
  // On the wall clock the timer below runs on, for the retry waits (model/retry.ts).
  const deadlineAt = Date.now() + limitMs;
  let timer: NodeJS.Timeout | undefined;
  // One signal per step: the model's HTTP calls and retry waits, the tools (queries, lookups)
  // and the sub-agent's rounds all stop with it, instead of running on after the step gave up.
  const stepSignal = new AbortController();
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DeadlineExceededError(
        `step deadline of ${deps.config.agent.stepDeadlineSeconds}s passed`,
        { stepId, deadlineSeconds: deps.config.agent.stepDeadlineSeconds },
      );
      stepSignal.abort(error);
      reject(error);
    }, limitMs);
  });
  try {
    return await Promise.race([
      offlineOnBadOutput(deps, "executor", () =>
        askStepExecutor({
          investigationId: inv.id,
          finding: inv.finding,
          plan,
          step: stepForExecution(step, deps.config.agent.plannedCalls),
          priorResults: prior,
          model: withDeadline(deps.model, stepSignal.signal, deadlineAt),
          toolbox: deps.toolbox,
          signal: stepSignal.signal,
          maxIterations: deps.config.agent.maxStepIterations,
          maxToolCallsPerTurn: deps.config.agent.maxToolCallsPerTurn,
          // DuckDB reads local files and reports no bytes: only BigQuery scans are budgeted.
          ...(deps.config.logs.warehouse === "bigquery"
            ? {
                scanBudget: investigationScanBudget(deps.store, inv.id, {
                  budgetBytes: deps.config.logs.maxBytesPerInvestigation,
                  worstCaseBytes: deps.config.logs.maxBytesBilled,
                }),
              }
            : {}),
          tokenAllowance: stepTokenAllowance(deps.config.agent, inv.counters, plan),
          cancelled: cancellationOf(inv.id, stepId, deps),
          logger: deps.logger.child({ investigationId: inv.id, stepId }),
          now: deps.now,
          ...(deps.histories
            ? {
                journal: createStepJournal({
                  store: deps.histories,
                  investigationId: inv.id,
                  stepId,
                  contextWindowTokens: deps.config.model.contextWindowTokens,
                  compressAt: deps.config.model.compressAt,
                  maxCompressions: MAX_COMPRESSIONS_PER_STEP,
                  now: deps.now,
                }),
              }
            : {}),
        }),
      ),
      deadline,
    ]);
  } catch (error) {
    // Provider outages are worth a workflow retry; anything else is this step's failure.
    if (isTransient(error)) throw error;
    if (error instanceof ContextPressureError) throw error;
    return {
      stepId,
      status: "failed",
      outcome: "failed",
      summary: `The step could not finish: ${errorMessage(error)}`,
      facts: [],
      iocs: [],
      toolCalls: [],
      iterations: 0,
      error: errorMessage(error),
      usage: ZERO_USAGE,
      model: deps.model.name,
      startedAt,
      finishedAt: deps.now().toISOString(),
    };
  } finally {
    clearTimeout(timer);
  }
}
function isTransient(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { retryable?: unknown }).retryable === true;
}

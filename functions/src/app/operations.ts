import { ContextPressureError } from "../agent/compression/errors.js";
import { concludeInvestigation } from "../agent/concluder.js";
import type { AnalystLesson } from "../agent/contexts.js";
import { executeStep } from "../agent/executor.js";
import { planInvestigation } from "../agent/planner.js";
import { reflectOnProgress } from "../agent/reflector.js";
import { createStepJournal } from "../agent/step-journal.js";
import { heldCalls, withApprovalOutcomes } from "../domain/approval-record.js";
import type { Conclusion } from "../domain/conclusion.js";
import { earlyReflectionDue } from "../domain/decisive.js";
import {
  DeadlineExceededError,
  errorMessage,
  InvalidInputError,
  ModelOutputError,
  NotFoundError,
} from "../domain/errors.js";
import {
  type Investigation,
  type InvestigationEvent,
  type InvestigationStatus,
  settledVerdictField,
  TERMINAL_STATUSES,
} from "../domain/investigation.js";
import { decideNext, type NextAction, stepTokenAllowance } from "../domain/next-action.js";
import type { Plan } from "../domain/plan.js";
import { applyPlanUpdates } from "../domain/plan-rules.js";
import { stepForExecution } from "../domain/planned-calls.js";
import type { Reflection } from "../domain/reflection.js";
import { addUsage, type StepResult, type Usage, ZERO_USAGE } from "../domain/results.js";
import { withDeadline } from "../model/deadline.js";
import type { Purpose } from "../model/port.js";
import type { Committed } from "../ports/investigation-store.js";
import { MAX_COMPRESSIONS_PER_STEP } from "./compression.js";
import type { AppDeps } from "./deps.js";
import { dismissalHold } from "./dismissal-check.js";
import { earlyCoverage, reflectEarly } from "./early-reflection.js";
import { publishEvents } from "./publish.js";
import { investigationScanBudget } from "./scan-budget.js";

/**
 * The investigation's operations, one per workflow call. Each is idempotent: calling it
 * again (a workflow retry, a timeout followed by a repeat) returns the first call's
 * outcome from Firestore instead of doing the work twice.
 */

export function withUsage(inv: Investigation, usage: Usage, now: Date): Investigation {
  return {
    ...inv,
    counters: { ...inv.counters, usage: addUsage(inv.counters.usage, usage) },
    updatedAt: now.toISOString(),
  };
}

export function modelFields(
  inv: Investigation,
  deps: AppDeps,
): Pick<Investigation, "model" | "fellBackToOffline"> {
  const reason = deps.fallbackReason?.();
  return reason
    ? { model: deps.model.name, fellBackToOffline: true }
    : { model: inv.model, fellBackToOffline: inv.fellBackToOffline };
}

/**
 * Runs one role's model work; when the configured LLM's answer still breaks its schema after
 * the repair call, it is treated like an LLM that is down: the offline model takes over and
 * the work runs again, instead of the whole investigation failing on a typed output error.
 */
export async function offlineOnBadOutput<T>(
  deps: AppDeps,
  purpose: Purpose,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ModelOutputError) || !deps.divertToOffline?.(error, purpose)) throw error;
    deps.logger.warn("model output unusable; continuing on the offline model", {
      purpose,
      error: errorMessage(error),
    });
    return run();
  }
}

/**
 * Events are published after their commit, so a publish that fails leaves a committed event
 * unsent, and the caller's retry finds the work already done. A replay therefore sends the
 * events that work produced again; consumers deduplicate by (investigationId, seq).
 */
async function republish(
  deps: AppDeps,
  id: string,
  which: (e: InvestigationEvent) => boolean,
): Promise<void> {
  await publishEvents(deps.bus, (await deps.store.listEvents(id)).filter(which));
}

async function commit(deps: AppDeps, committed: Committed): Promise<Investigation> {
  await publishEvents(deps.bus, committed.events);
  return committed.investigation;
}

export function requirePlan(inv: Investigation): Plan {
  if (!inv.plan) throw new InvalidInputError(`investigation ${inv.id} has no plan yet`);
  return inv.plan;
}

function decide(
  inv: Investigation,
  deps: AppDeps,
  extra: Partial<Parameters<typeof decideNext>[0]> = {},
): NextAction {
  return decideNext({
    plan: requirePlan(inv),
    counters: inv.counters,
    policy: deps.config.agent,
    now: deps.now(),
    deadlineAt: new Date(inv.deadlineAt),
    ...extra,
  });
}

function terminalAction(inv: Investigation): NextAction | undefined {
  if (!TERMINAL_STATUSES.includes(inv.status)) return undefined;
  return inv.status === "concluded"
    ? { kind: "conclude", reason: "already concluded" }
    : { kind: "needs_human", reason: inv.reason ?? inv.status };
}

/** Disputed verdicts on earlier findings of the same category; a lookup failure never blocks planning. */
async function lessonsFor(investigation: Investigation, deps: AppDeps): Promise<AnalystLesson[]> {
  if (!deps.lessons) return [];
  try {
    const found = await deps.lessons.forCategory(investigation.finding.category, MAX_LESSONS);
    return found
      .filter((l) => l.investigationId !== investigation.id)
      .map((l) => ({
        investigationId: l.investigationId,
        category: l.category,
        resource: l.resource,
        ferretVerdict: l.ferretVerdict,
        analystVerdict: l.analystVerdict,
        reason: l.reason,
        disputedAt: l.createdAt,
      }));
  } catch (error) {
    deps.logger.warn("analyst lessons unavailable; planning without them", { error: errorMessage(error) });
    return [];
  }
}

const MAX_LESSONS = 5;

export async function startPlanning(id: string, deps: AppDeps): Promise<NextAction> {
  const existing = await deps.store.require(id);
  const done = terminalAction(existing);
  if (done) return done;
  if (existing.plan) {
    await republish(deps, id, (e) => e.type === "planned");
    return decide(existing, deps);
  }
  const related = await deps.store.findRelated({
    resourceName: existing.finding.resource.name,
    excludeId: id,
    limit: 5,
  });
  const lessons = await lessonsFor(existing, deps);
  const { plan, usage } = await offlineOnBadOutput(deps, "planner", () =>
    planInvestigation({
      investigationId: id,
      finding: existing.finding,
      model: deps.model,
      tools: deps.toolbox.available(),
      declarations: deps.toolbox.declarationsFor(deps.toolbox.names()),
      tables: deps.tables,
      maxSteps: deps.config.agent.maxSteps,
      related: related.map((r) => ({
        id: r.id,
        category: r.finding.category,
        resource: r.finding.resource.name,
        ...settledVerdictField(r),
        createdAt: r.createdAt,
        sharedBy: "resource",
      })),
      lessons,
    }),
  );
  const now = deps.now();
  const inv = await commit(
    deps,
    await deps.store.update(id, (current) => {
      if (current.plan) return undefined; // a concurrent duplicate planned first; keep its plan
      return {
        investigation: {
          ...withUsage(current, usage, now),
          ...modelFields(current, deps),
          status: "running",
          plan,
        },
        events: [{ type: "planned", message: `Plan with ${plan.steps.length} steps: ${plan.objective}` }],
      };
    }),
  );
  return decide(inv, deps);
}

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

export async function runStep(id: string, stepId: string, deps: AppDeps): Promise<StepOutcome> {
  const existing = await deps.store.getStepResult(id, stepId);
  if (existing) {
    await republish(deps, id, (e) => e.stepId === stepId);
    return { stepId, status: existing.status, executed: false, held: heldCalls(existing, id) };
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
    held: heldCalls(recorded.result, id),
  };
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
        executeStep({
          investigationId: inv.id,
          finding: inv.finding,
          plan,
          step: stepForExecution(step, deps.config.agent.plannedCalls),
          priorResults: prior,
          model: withDeadline(deps.model, stepSignal.signal),
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

/**
 * Called once per finished wave: reflects when the policy says so (once per wave, stored
 * under the wave number), applies the plan updates, and returns the next action.
 */
export async function advance(
  id: string,
  wave: number,
  stepIds: readonly string[],
  deps: AppDeps,
): Promise<NextAction> {
  const inv = await deps.store.require(id);
  const done = terminalAction(inv);
  if (done) return done;
  const stored = await deps.store.getReflection(id, wave);
  if (stored) {
    await republish(deps, id, (e) => e.type === "reflected");
    return decide(inv, deps, { lastReflection: reflectionSignal(stored) });
  }
  const [results, reflections] = await Promise.all([
    deps.store.listStepResults(id),
    deps.store.listReflections(id),
  ]);
  const waveResults = results.filter((r) => stepIds.includes(r.stepId));
  const first = decide(inv, deps, {
    finishedWave: {
      stepIds,
      anyFailed: waveResults.some((r) => r.status === "failed"),
      allAnswered:
        waveResults.length === stepIds.length && waveResults.every((r) => r.outcome === "answered"),
    },
  });
  if (first.kind !== "reflect") return first;
  // A reflection already ran on this wave's decisive result: no second one to reach the same answer.
  const early = earlyCoverage(
    reflections,
    stepIds,
    waveResults.map((r) => r.stepId),
  );
  const covering = early.achieved ?? (early.coversWave ? early.latest : undefined);
  if (covering) return decide(inv, deps, { lastReflection: reflectionSignal(covering) });

  const { draft, usage, outcome, rules } = await runReflector(inv, results, stepIds, deps);
  const reflection: Reflection = {
    ...draft,
    wave,
    afterSteps: [...stepIds],
    applied: outcome.applied,
    refused: outcome.refused,
    skipped: false,
    usage,
    model: deps.model.name,
    createdAt: deps.now().toISOString(),
  };
  const recorded = await deps.store.recordReflection(id, reflection, (current) => {
    const base = withUsage(current, usage, deps.now());
    const changed =
      outcome.applied.length > 0
        ? applyPlanUpdates(requirePlan(current), draft.updates, rules).plan
        : requirePlan(current);
    return {
      investigation: {
        ...base,
        ...modelFields(current, deps),
        plan: changed,
        counters: { ...base.counters, waves: base.counters.waves + 1, revisions: changed.revision },
      },
      events: [{ type: "reflected", message: reflectionMessage(reflection) }],
    };
  });
  await publishEvents(deps.bus, recorded.events);
  return decide(recorded.investigation, deps, { lastReflection: reflectionSignal(recorded.reflection) });
}

function reflectionSignal(r: Reflection): { achieved: boolean; refusedForBudget: number } {
  return {
    achieved: r.achieved,
    refusedForBudget: r.refused.filter((x) => x.reason.includes("revision budget")).length,
  };
}

export function reflectionMessage(r: Reflection): string {
  const changes = r.applied.map((u) =>
    u.op === "add" ? `+${u.step.id}` : u.op === "cancel" ? `-${u.id}` : `~${u.id}`,
  );
  return `${r.achieved ? "Objective achieved. " : ""}${r.insights[0] ?? r.rationale}${changes.length ? ` (plan: ${changes.join(" ")})` : ""}`;
}

export type FinishMode = "conclude" | "needs_human";

export async function finish(
  id: string,
  mode: FinishMode,
  reason: string,
  deps: AppDeps,
): Promise<Investigation> {
  const inv = await deps.store.require(id);
  if (TERMINAL_STATUSES.includes(inv.status)) {
    await republish(
      deps,
      id,
      (e) => e.type === "concluded" || e.type === "needs_human" || e.type === "failed",
    );
    return inv;
  }
  const plan: Plan = inv.plan ?? {
    objective: `Triage ${inv.finding.category}`,
    successCriteria: [],
    constraints: [],
    steps: [],
    revision: 0,
  };
  const [results, reflections] = await Promise.all([
    deps.store.listStepResults(id),
    deps.store.listReflections(id),
  ]);
  const { conclusion, usage } = await offlineOnBadOutput(deps, "concluder", () => {
    // Read after a possible switch; an earlier request's switch is only on the document.
    const fallback =
      deps.fallbackReason?.() ??
      (inv.fellBackToOffline ? "in an earlier call of this investigation" : undefined);
    return concludeInvestigation({
      investigationId: id,
      finding: inv.finding,
      plan,
      results,
      reflections,
      model: deps.model,
      mode,
      reason,
      now: deps.now(),
      ...(fallback
        ? {
            fallbackNote: `The configured LLM became unavailable (${fallback}); the offline playbook model finished the investigation.`,
          }
        : {}),
    });
  });
  const held =
    mode === "conclude" ? dismissalHold(conclusion, results, deps.config.model.offlineDismissals) : undefined;
  if (held) {
    deps.logger.warn("dismissal held for a person", {
      investigationId: id,
      kind: held.kind,
      verdict: held.verdict,
      indicators: held.indicators,
    });
  }
  const concluded = mode === "conclude" && !held;
  const status: InvestigationStatus = concluded ? "concluded" : "needs_human";
  const finalReason = held ? held.reason : reason;
  const kept: Conclusion = held
    ? { ...conclusion, openQuestions: [held.question, ...conclusion.openQuestions].slice(0, 10) }
    : conclusion;
  const finished = await commit(
    deps,
    await deps.store.update(id, (current) => {
      if (TERMINAL_STATUSES.includes(current.status)) return undefined;
      return {
        investigation: {
          ...withUsage(current, usage, deps.now()),
          ...modelFields(current, deps),
          status,
          conclusion: withApprovalOutcomes(kept, current.approvals),
          reason: finalReason,
        },
        events: [
          {
            type: concluded ? "concluded" : "needs_human",
            message: concluded
              ? `Verdict ${kept.verdict} (${Math.round(kept.confidence * 100)}%): ${kept.summary}`
              : `Needs a human: ${finalReason}`,
          },
        ],
      };
    }),
  );
  await indexForSimilarity(deps, finished);
  return finished;
}

/** A later investigation's related_findings can only find this one once it is indexed. */
async function indexForSimilarity(deps: AppDeps, inv: Investigation): Promise<void> {
  if (!deps.indexFinding) return;
  try {
    await deps.indexFinding(inv);
  } catch (error) {
    deps.logger.warn("could not index the finding for similarity search", { error: errorMessage(error) });
  }
}

export async function markFailed(id: string, reason: string, deps: AppDeps): Promise<Investigation> {
  return commit(
    deps,
    await deps.store.update(id, (current) => {
      if (TERMINAL_STATUSES.includes(current.status)) return undefined;
      return {
        investigation: { ...current, status: "failed", reason, updatedAt: deps.now().toISOString() },
        events: [{ type: "failed", message: `Investigation failed: ${reason}` }],
      };
    }),
  );
}

/**
 * Asks the reflector about the results so far and applies its updates to the plan as read:
 * the wave's reflection and an early one differ only in what they record.
 */
export async function runReflector(
  inv: Investigation,
  results: StepResult[],
  justFinished: readonly string[],
  deps: AppDeps,
) {
  const plan = requirePlan(inv);
  const rules = {
    allowedTools: deps.toolbox.names(),
    maxSteps: deps.config.agent.maxSteps,
    maxRevisions: deps.config.agent.maxRevisions,
  };
  const { draft, usage } = await offlineOnBadOutput(deps, "reflector", () =>
    reflectOnProgress({
      investigationId: inv.id,
      finding: inv.finding,
      plan,
      results,
      justFinished: [...justFinished],
      model: deps.model,
      tools: rules.allowedTools,
      maxSteps: rules.maxSteps,
      revisionsLeft: Math.max(0, rules.maxRevisions - plan.revision),
    }),
  );
  return { draft, usage, outcome: applyPlanUpdates(plan, draft.updates, rules), rules };
}

import type { BriefRole } from "../agent/briefs.js";
import { errorMessage, InvalidInputError, ModelOutputError } from "../domain/errors.js";
import { type Investigation, type InvestigationEvent, TERMINAL_STATUSES } from "../domain/investigation.js";
import { decideNext, type NextAction } from "../domain/next-action.js";
import type { Plan } from "../domain/plan.js";
import { addUsage, type Usage } from "../domain/results.js";
import type { Committed } from "../ports/investigation-store.js";
import type { AppDeps } from "./deps.js";
import { recordIfEnded } from "./investigation-meters.js";
import { publishEvents } from "./publish.js";

/**
 * What the roles' operations share (app/planner.ts, app/step-executor.ts, app/reflector.ts,
 * app/concluder.ts, one per workflow call). Each is idempotent: calling it
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

/**
 * The model fields an operation writes back. A fallback in this request is recorded with its
 * reason; after a passing failure it holds for model.offlineRetryAfterSeconds, after which the
 * investigation's next request asks the configured LLM again (model/choice.ts servedOffline).
 */
export function modelFields(
  inv: Investigation,
  deps: AppDeps,
): Pick<Investigation, "model" | "fellBackToOffline" | "offlineUntil" | "fallbackReason"> {
  const reason = deps.fallbackReason?.();
  if (!reason) {
    return {
      model: inv.model,
      fellBackToOffline: inv.fellBackToOffline,
      ...(inv.offlineUntil ? { offlineUntil: inv.offlineUntil } : {}),
      ...(inv.fallbackReason ? { fallbackReason: inv.fallbackReason } : {}),
    };
  }
  const until = new Date(deps.now().getTime() + deps.config.model.offlineRetryAfterSeconds * 1000);
  return {
    model: deps.model.name,
    fellBackToOffline: true,
    fallbackReason: reason.message.slice(0, 1_000),
    ...(reason.transient ? { offlineUntil: until.toISOString() } : {}),
  };
}

/**
 * Runs one role's model work; when the configured LLM's answer still breaks its schema after
 * the repair call, it is treated like an LLM that is down: the offline model takes over and
 * the work runs again, instead of the whole investigation failing on a typed output error.
 */
export async function offlineOnBadOutput<T>(
  deps: AppDeps,
  role: BriefRole,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ModelOutputError) || !deps.divertToOffline?.(error, role)) throw error;
    deps.logger.warn("model output unusable; continuing on the offline model", {
      role,
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
export async function republish(
  deps: AppDeps,
  id: string,
  which: (e: InvestigationEvent) => boolean,
): Promise<void> {
  await publishEvents(deps.bus, (await deps.store.listEvents(id)).filter(which));
}

export async function commit(deps: AppDeps, committed: Committed): Promise<Investigation> {
  recordIfEnded(committed);
  await publishEvents(deps.bus, committed.events);
  return committed.investigation;
}

export function requirePlan(inv: Investigation): Plan {
  if (!inv.plan) throw new InvalidInputError(`investigation ${inv.id} has no plan yet`);
  return inv.plan;
}

export function decide(
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

export function terminalAction(inv: Investigation): NextAction | undefined {
  if (!TERMINAL_STATUSES.includes(inv.status)) return undefined;
  return inv.status === "concluded"
    ? { kind: "conclude", reason: "already concluded" }
    : { kind: "needs_human", reason: inv.reason ?? inv.status };
}

import { askConcluder } from "../agent/concluder.js";
import { withApprovalOutcomes } from "../domain/approval-record.js";
import type { Conclusion } from "../domain/conclusion.js";
import { errorMessage } from "../domain/errors.js";
import { type Investigation, type InvestigationStatus, TERMINAL_STATUSES } from "../domain/investigation.js";
import type { Plan } from "../domain/plan.js";
import type { AppDeps } from "./deps.js";
import { dismissalHold } from "./dismissal-check.js";
import { commit, modelFields, offlineOnBadOutput, republish, withUsage } from "./roles-common.js";

export type ConcluderMode = "conclude" | "needs_human";

export async function runConcluder(
  id: string,
  mode: ConcluderMode,
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
      deps.fallbackReason?.()?.message ??
      (inv.fellBackToOffline
        ? (inv.fallbackReason ?? "in an earlier call of this investigation")
        : undefined);
    return askConcluder({
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

export async function failInvestigation(id: string, reason: string, deps: AppDeps): Promise<Investigation> {
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

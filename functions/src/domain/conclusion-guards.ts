import type { ConclusionDraft } from "./conclusion.js";
import { evidenceTies, tieKey } from "./evidence-ties.js";
import { type Finding, findingIocs, SEVERITY_RANK } from "./finding/finding.js";
import { asIndicator } from "./finding/indicator-grammar.js";
import { extractIocs, type Ioc, mergeIocs } from "./ioc.js";
import type { Plan } from "./plan.js";
import type { StepResult } from "./results.js";

/**
 * Rules every conclusion keeps, whichever model wrote it (issue 30, item 4).
 *
 * Severity: the detector's severity is evidence too. A conclusion that found nothing
 * (inconclusive) or confirmed the finding (true_positive) never rates it lower than the
 * detector did: missing logs are not a reason to worry less. Only a dismissal, which rests
 * on positive benign evidence, may lower it, and the summary then says so.
 */
export function keptSeverity<
  D extends Pick<ConclusionDraft, "verdict" | "severity" | "summary" | "severityReason">,
>(finding: Pick<Finding, "severity">, draft: D): D {
  const detector = finding.severity;
  if (detector === "SEVERITY_UNSPECIFIED") return draft;
  const lower = SEVERITY_RANK[draft.severity] < SEVERITY_RANK[detector];
  if (!lower) return draft;
  if (draft.verdict === "benign" || draft.verdict === "false_positive") {
    const said = new RegExp(`\\b${detector}\\b`).test(draft.summary);
    const note = `Severity lowered from the detector's ${detector} to ${draft.severity} on the benign evidence above.`;
    return {
      ...draft,
      summary: said ? draft.summary : appendSentence(draft.summary, note),
      severityReason: draft.severityReason ?? note.slice(0, 300),
    };
  }
  const note = `Severity kept at the detector's ${detector}: evidence that is missing does not lower it.`;
  // The severity is the detector's again, so a reason the draft gave for another one no longer holds.
  const { severityReason: _dropped, ...rest } = draft;
  return { ...rest, severity: detector, summary: appendSentence(draft.summary, note) } as D;
}

function appendSentence(summary: string, sentence: string): string {
  const max = 3_000;
  const joined = `${summary.trimEnd()} ${sentence}`;
  return joined.length <= max ? joined : `${summary.slice(0, max - sentence.length - 2)}… ${sentence}`;
}

/**
 * A value the model listed holds when it is written in its kind's grammar (a Google front end or
 * a masked address is not an indicator) and, for a domain, when the logs did not show it only
 * where no column declares a domain (`bob.schmidt` in an sshd line is an account).
 */
function draftHolds(ioc: Ioc, ties: ReturnType<typeof evidenceTies>): boolean {
  const key = tieKey(ioc);
  if (ties.ties.has(key)) return true;
  if (ties.undeclaredOnly.has(key)) return false;
  if (ioc.type === "email" || ioc.type === "principal") return true;
  return asIndicator(ioc.type, ioc.value).is !== "context";
}

/**
 * The conclusion's IOCs, completed: the model's own list first (each written in its kind's
 * grammar), then the IOCs steps recorded that something ties to the finding (evidence-ties.ts:
 * the finding names it, intel judged it, or it shares a log row with the finding's own
 * indicator; a value merely seen in the logs is not one), then the finding's own indicators,
 * then values named by steps that never ran (cancelled once the verdict was decided, or still
 * pending), so deciding early never loses an indicator. Capped at the schema's 50; the model's
 * ordering wins.
 */
export function completeIocs(
  draft: readonly Ioc[],
  finding: Finding,
  plan: Plan,
  results: readonly StepResult[],
): Ioc[] {
  const ties = evidenceTies(finding, results);
  const fromSteps = results.flatMap((r) =>
    r.iocs.flatMap((i): Ioc[] => {
      const why = ties.ties.get(tieKey(i));
      return why ? [{ ...i, context: `${i.context ? `${i.context}; ` : ""}${why}`.slice(0, 500) }] : [];
    }),
  );
  const fromFinding = findingIocs(finding);
  const ran = new Set(results.map((r) => r.stepId));
  const notRun = plan.steps
    .filter((s) => !ran.has(s.id) && (s.status === "cancelled" || s.status === "pending"))
    .flatMap((s) =>
      extractIocs(`${s.description} ${JSON.stringify(s.calls ?? [])}`).map(
        (i): Ioc => ({ ...i, context: `named by step ${s.id}, which did not run (${s.status})` }),
      ),
    );
  return mergeIocs(
    draft.filter((i) => draftHolds(i, ties)),
    fromSteps,
    fromFinding,
    notRun,
  )
    .filter((i) => i.value.length > 0)
    .slice(0, 50);
}

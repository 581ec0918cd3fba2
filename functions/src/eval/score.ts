import { OFFLINE_HOLD_PREFIX } from "../app/dismissal-check.js";
import { type Investigation, settledVerdict } from "../domain/investigation.js";
import type { StepResult } from "../domain/results.js";
import type { Expected } from "./expected.js";

export interface Score {
  verdict: string;
  verdictRight: boolean;
  /**
   * The offline model's dismissal, held for a person by the default policy
   * (model.offlineDismissals: hold). Right when the draft is an acceptable verdict: holding it
   * is the product's intended outcome, not a miss.
   */
  heldDraft: boolean;
  iocRecall: number;
  missingIocs: string[];
  evidenceRecall: number;
  missingEvidence: string[];
}

/**
 * Scores one finished investigation against its scenario's expectations. IOCs count as
 * found when the conclusion lists them; evidence counts as found when one of its strings
 * appears in what the investigation reported (step summaries and facts, the conclusion's
 * findings), not in raw tool output, because the point is what a reader is told.
 */
export function scoreInvestigation(
  inv: Investigation,
  results: readonly StepResult[],
  expected: Expected,
): Score {
  const judged = judgeVerdict(inv, expected.acceptableVerdicts ?? [expected.verdict]);
  const concluded = new Set((inv.conclusion?.iocs ?? []).map((i) => i.value.toLowerCase()));
  const missingIocs = expected.requiredIocs
    .filter((i) => !concluded.has(i.value.toLowerCase()))
    .map((i) => i.value);
  const reported = [
    ...results.flatMap((r) => [r.summary, ...r.facts]),
    inv.conclusion?.summary ?? "",
    ...(inv.conclusion?.keyFindings ?? []).flatMap((k) => [k.finding, ...k.evidence.map((e) => e.detail)]),
  ]
    .join("\n")
    .toLowerCase();
  const missingEvidence = expected.requiredEvidence
    .filter((e) => !e.anyOf.some((needle) => reported.includes(needle.toLowerCase())))
    .map((e) => e.id);
  const ratio = (missing: number, total: number) => (total === 0 ? 1 : (total - missing) / total);
  return {
    verdict: judged.verdict,
    verdictRight: judged.right,
    heldDraft: judged.heldDraft,
    iocRecall: ratio(missingIocs.length, expected.requiredIocs.length),
    missingIocs,
    evidenceRecall: ratio(missingEvidence.length, expected.requiredEvidence.length),
    missingEvidence,
  };
}

export interface VerdictJudgement {
  /** The settled verdict, or the status with the draft's verdict. */
  verdict: string;
  right: boolean;
  heldDraft: boolean;
}

/**
 * Whether an investigation ended with an acceptable verdict: a concluded verdict counts, and
 * so does the offline model's dismissal held for a person by the default policy; other drafts
 * are shown as such. Eval and the bench judge verdicts with this one rule.
 */
export function judgeVerdict(inv: Investigation, acceptable: readonly string[]): VerdictJudgement {
  const settled = settledVerdict(inv);
  const verdict =
    settled ?? (inv.conclusion ? `${inv.status} (draft ${inv.conclusion.verdict})` : inv.status);
  // Only the offline-dismissal hold counts; a dismissal held because intel contradicts it is not right.
  const heldDraft =
    inv.status === "needs_human" &&
    inv.conclusion !== undefined &&
    inv.conclusion.producedBy.offline &&
    (inv.reason ?? "").startsWith(OFFLINE_HOLD_PREFIX);
  const right =
    (settled !== undefined && acceptable.includes(settled)) ||
    (heldDraft && inv.conclusion !== undefined && acceptable.includes(inv.conclusion.verdict));
  return { verdict, right, heldDraft };
}

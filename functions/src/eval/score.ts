import { type Investigation, settledVerdict } from "../domain/investigation.js";
import type { StepResult } from "../domain/results.js";
import type { Expected } from "./expected.js";

export interface Score {
  verdict: string;
  verdictRight: boolean;
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
  // Only a concluded verdict counts; a needs_human draft (e.g. a held dismissal) is shown as such.
  const settled = settledVerdict(inv);
  const verdict =
    settled ?? (inv.conclusion ? `${inv.status} (draft ${inv.conclusion.verdict})` : inv.status);
  const acceptable = expected.acceptableVerdicts ?? [expected.verdict];
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
    verdict,
    verdictRight: settled !== undefined && acceptable.includes(settled),
    iocRecall: ratio(missingIocs.length, expected.requiredIocs.length),
    missingIocs,
    evidenceRecall: ratio(missingEvidence.length, expected.requiredEvidence.length),
    missingEvidence,
  };
}

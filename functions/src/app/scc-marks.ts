import { currentDecision } from "../domain/analyst.js";
import type { Investigation } from "../domain/investigation.js";

/**
 * The security marks ferret writes on a finding: its own verdict and the analyst's, side by
 * side, so SCC queries (`security_marks.marks.ferret_verdict = "false_positive"`) can find
 * them. Keys are ferret's own; values are enum words, numbers and ids, never free text.
 */
export function sccMarksFor(investigation: Investigation): Record<string, string> {
  const marks: Record<string, string> = { ferret_investigation: investigation.id };
  const c = investigation.conclusion;
  if (c) {
    marks.ferret_verdict = c.verdict;
    marks.ferret_confidence = c.confidence.toFixed(2);
    marks.ferret_model = c.producedBy.offline ? "offline" : c.producedBy.model.slice(0, 100);
  }
  const decision = currentDecision(investigation.analystDecisions);
  if (decision) {
    marks.analyst_decision = decision.kind === "confirm" ? "confirmed" : "disputed";
    if (decision.verdict) marks.analyst_verdict = decision.verdict;
    marks.analyst_user = decision.by.id;
  }
  return marks;
}

import type { Verdict } from "../../domain/conclusion.js";
import type { Severity } from "../../domain/finding/finding.js";
import type { Decision } from "./decision.js";

/**
 * The two short sentences the verdict card leads with (issue 29): why the verdict, and why the
 * severity moved from SCC's. Plain words, no offline mark: the card's footer says once that
 * no LLM produced it, and the summary in the thread still carries the mark.
 */

/** "Rule: a malicious … from the workload → true_positive." → "A malicious … from the workload." */
export function ruleInWords(rule: string): string {
  const words = rule
    .replace(/^Rule:\s*/i, "")
    .replace(/\s*→\s*[a-z_]+(?:\s+at lower confidence)?\.?\s*$/i, "")
    .trim();
  if (words.length === 0) return rule;
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}${/[.!?]$/.test(words) ? "" : "."}`;
}

export function whyOf(decision: Decision, verdict: Verdict): string {
  const decisive = decision.why ?? ruleInWords(decision.rule);
  if (verdict === "inconclusive" && decision.verdict !== "inconclusive") {
    return `The investigation stopped before it finished; so far: ${decisive.charAt(0).toLowerCase()}${decisive.slice(1)}`;
  }
  return decisive;
}

const BECAUSE: Record<Verdict, string> = {
  true_positive: "The evidence confirms the activity.",
  false_positive: "The evidence shows the detection was wrong.",
  benign: "The evidence shows the activity is expected.",
  inconclusive: "The evidence does not settle the verdict; a middle severity until a person looks.",
};

/**
 * Why the rule's severity differs from the finding's, undefined when it does not. Which way it
 * moved is for the reader to say ("raised from SCC's MEDIUM"); this is the because.
 */
export function severityReasonOf(
  verdict: Verdict,
  severity: Severity,
  findingSeverity: Severity,
): string | undefined {
  return severity === findingSeverity ? undefined : BECAUSE[verdict];
}

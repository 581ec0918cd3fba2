import type { Verdict } from "../../domain/conclusion.js";
import type { Decision } from "./decision.js";

/** Independent signals a dismissal must rest on; one signal can come from one attacker-written row. */
export const MIN_DISMISSAL_SIGNALS = 2;

const DISMISSALS: ReadonlySet<Verdict> = new Set<Verdict>(["benign", "false_positive"]);

/**
 * The offline model never dismisses on one signal. A family's dismissal names the independent
 * signals it rests on (`Decision.signals`, one name per source: a DNS client's name, an intel
 * tag, a website configuration…); with fewer than MIN_DISMISSAL_SIGNALS distinct ones it
 * becomes inconclusive, whatever the family's rule said. Kept outside the families so a rule
 * that forgets to name its signals cannot dismiss at all.
 */
export function requireCorroboration(decision: Decision): Decision {
  if (!DISMISSALS.has(decision.verdict)) return decision;
  const signals = [...new Set(decision.signals ?? [])];
  if (signals.length >= MIN_DISMISSAL_SIGNALS) return decision;
  return {
    ...decision,
    verdict: "inconclusive",
    confidence: Math.min(decision.confidence, 0.4),
    severity: "MEDIUM",
    rule: `Rule: a ${decision.verdict} needs at least ${MIN_DISMISSAL_SIGNALS} independent corroborating signals; only ${signals.length} (${signals.join(", ") || "none"}) → inconclusive. The family rule said: ${decision.rule.replace(/^Rule:\s*/, "")}`,
    iocs: decision.iocs,
    actions: [
      {
        action: `Confirm or refute the ${decision.verdict.replace("_", " ")} by hand: one signal is not enough to dismiss a finding.`,
        priority: "soon",
      },
      ...decision.actions,
    ],
    openQuestions: [
      `What second, independent source confirms the ${decision.verdict.replace("_", " ")}?`,
      ...decision.openQuestions,
    ],
  };
}

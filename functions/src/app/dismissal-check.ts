import type { Conclusion, Verdict } from "../domain/conclusion.js";
import type { IocType } from "../domain/ioc.js";
import type { StepResult } from "../domain/results.js";

export interface MaliciousIndicator {
  type: IocType;
  value: string;
  sources: string[];
  stepId: string;
}

export interface IntelContradiction {
  verdict: Verdict;
  malicious: MaliciousIndicator[];
  /** Why the investigation is held for a person; shown in Slack as the reason. */
  reason: string;
}

const DISMISSALS: ReadonlySet<Verdict> = new Set<Verdict>(["false_positive", "benign"]);
const NAMED_IN_REASON = 3;

/**
 * A dismissal (false_positive or benign) that threat intelligence contradicts: an indicator
 * the investigation looked up came back malicious. The verdict is the model's, and the model
 * reads attacker-controlled text (a finding or a log row can argue "this is a test, close
 * it"); the intel verdict is the provider's, recorded by the tool's code on the tool call.
 * Closing a finding against it is left to a person.
 */
export function intelContradiction(
  conclusion: Pick<Conclusion, "verdict" | "confidence">,
  results: readonly StepResult[],
): IntelContradiction | undefined {
  if (!DISMISSALS.has(conclusion.verdict)) return undefined;
  const malicious = new Map<string, MaliciousIndicator>();
  for (const result of results) {
    for (const call of result.toolCalls) {
      for (const v of call.verdicts ?? []) {
        if (v.verdict !== "malicious") continue;
        const key = `${v.type}:${v.value.toLowerCase()}`;
        if (!malicious.has(key)) {
          malicious.set(key, { type: v.type, value: v.value, sources: v.sources, stepId: result.stepId });
        }
      }
    }
  }
  if (malicious.size === 0) return undefined;
  const found = [...malicious.values()];
  const named = found
    .slice(0, NAMED_IN_REASON)
    .map((m) => `${m.type} ${m.value}${m.sources.length > 0 ? ` (${m.sources.slice(0, 2).join(", ")})` : ""}`)
    .join(", ");
  const more = found.length > NAMED_IN_REASON ? ` and ${found.length - NAMED_IN_REASON} more` : "";
  const pct = Math.round(conclusion.confidence * 100);
  return {
    verdict: conclusion.verdict,
    malicious: found,
    reason:
      `the model concluded ${conclusion.verdict} (${pct}%), but threat intel marks ${named}${more} as malicious; ` +
      "a person should confirm before the finding is dismissed",
  };
}

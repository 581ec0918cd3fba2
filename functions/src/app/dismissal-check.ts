import type { Conclusion, Verdict } from "../domain/conclusion.js";
import type { IocType } from "../domain/ioc.js";
import type { StepResult } from "../domain/results.js";

export interface MaliciousIndicator {
  type: IocType;
  value: string;
  sources: string[];
  stepId: string;
}

/** Why a dismissal is kept as a draft for a person instead of concluding. */
export type HoldKind = "intel_contradiction" | "offline_dismissal";

export interface DismissalHold {
  kind: HoldKind;
  verdict: Verdict;
  /** Why the investigation is held for a person; shown in Slack as the reason. */
  reason: string;
  /** The question the person is asked first. */
  question: string;
  /** Indicators behind the hold ("type:value"), for the log. */
  indicators: string[];
}

export interface IntelContradiction extends DismissalHold {
  kind: "intel_contradiction";
  malicious: MaliciousIndicator[];
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
    kind: "intel_contradiction",
    verdict: conclusion.verdict,
    malicious: found,
    indicators: found.map((m) => `${m.type}:${m.value}`),
    question: `Why would ${found
      .map((m) => m.value)
      .slice(0, NAMED_IN_REASON)
      .join(", ")} be harmless here, given threat intel marks it malicious?`.slice(0, 500),
    reason:
      `the model concluded ${conclusion.verdict} (${pct}%), but threat intel marks ${named}${more} as malicious; ` +
      "a person should confirm before the finding is dismissed",
  };
}

/** Starts every offline-dismissal hold reason, so readers (eval, Slack) can tell the two holds apart. */
export const OFFLINE_HOLD_PREFIX = "offline playbook dismissal held";

/**
 * A dismissal written by the offline playbook model. Its rules read names and log lines an
 * attacker can choose, and no rule is judgement, so by default (`model.offlineDismissals:
 * hold`) the draft waits for a person; an operator who trusts the rules can set "allow".
 */
export function offlineDismissal(
  conclusion: Pick<Conclusion, "verdict" | "confidence" | "producedBy">,
  policy: "hold" | "allow",
): DismissalHold | undefined {
  if (policy === "allow" || !conclusion.producedBy.offline || !DISMISSALS.has(conclusion.verdict))
    return undefined;
  const pct = Math.round(conclusion.confidence * 100);
  return {
    kind: "offline_dismissal",
    verdict: conclusion.verdict,
    reason:
      `${OFFLINE_HOLD_PREFIX}: the offline playbook model (rules, no LLM) drafted ${conclusion.verdict} (${pct}%); ` +
      "a person confirms before the finding is dismissed (model.offlineDismissals: hold)",
    indicators: [],
    question: `Do you agree with the offline model's draft ${conclusion.verdict}, given the evidence it lists?`,
  };
}

/** The hold that applies to a conclusion, if any; an intel contradiction is named first. */
export function dismissalHold(
  conclusion: Pick<Conclusion, "verdict" | "confidence" | "producedBy">,
  results: readonly StepResult[],
  policy: "hold" | "allow",
): DismissalHold | undefined {
  return intelContradiction(conclusion, results) ?? offlineDismissal(conclusion, policy);
}

import type { Config } from "../config/config.js";
import type { Investigation } from "../domain/investigation.js";
import type { StepResult } from "../domain/results.js";
import type { Logger } from "../platform/logger.js";
import type { SccFindings } from "../ports/scc-findings.js";
import { intelContradiction } from "./dismissal-check.js";
import { sccMarksFor } from "./scc-marks.js";

export type AutoCloseDecision = { close: true } | { close: false; why: string };

/**
 * Whether ferret alone may mark the finding INACTIVE. Off by default; when on, only for a
 * concluded false_positive/benign verdict written by Gemini (never the offline rules, never an
 * investigation that fell back to them) at or above the configured confidence, with no
 * threat-intel verdict on a tool call contradicting it, and no analyst who disagreed. Every
 * input is a structured field written by code; no text a finding or log row carries decides it.
 */
export function autoCloseDecision(
  investigation: Investigation,
  results: readonly StepResult[],
  config: Pick<Config, "scc">,
): AutoCloseDecision {
  const c = investigation.conclusion;
  if (!config.scc.writeback || !config.scc.autoClose) return { close: false, why: "auto-close is off" };
  if (investigation.status !== "concluded" || !c) return { close: false, why: "not concluded" };
  if (c.verdict !== "false_positive" && c.verdict !== "benign")
    return { close: false, why: `verdict ${c.verdict}` };
  if (c.producedBy.offline || investigation.fellBackToOffline || !/^gemini/i.test(c.producedBy.model)) {
    return { close: false, why: "not a Gemini verdict" };
  }
  if (c.confidence < config.scc.autoCloseMinConfidence)
    return { close: false, why: "confidence below the bar" };
  if (intelContradiction(c, results)) return { close: false, why: "threat intel contradicts the verdict" };
  if ((investigation.analystDecisions ?? []).some((d) => d.kind === "dispute")) {
    return { close: false, why: "an analyst disputed the verdict" };
  }
  return { close: true };
}

/** Applies the decision: security marks first (so SCC says why), then state INACTIVE. Both calls set values, so a redelivery is harmless. */
export async function autoCloseIfAllowed(
  investigation: Investigation,
  results: readonly StepResult[],
  deps: { config: Pick<Config, "scc">; scc: SccFindings; logger: Logger; now: () => Date },
): Promise<AutoCloseDecision> {
  const decision = autoCloseDecision(investigation, results, deps.config);
  if (!decision.close) return decision;
  await deps.scc.setSecurityMarks(investigation.finding.name, {
    ...sccMarksFor(investigation),
    ferret_auto_closed: "true",
  });
  await deps.scc.setInactive(investigation.finding.name, deps.now());
  deps.logger.info("finding marked INACTIVE by ferret (auto-close)", { investigationId: investigation.id });
  return decision;
}

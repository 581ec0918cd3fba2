import type { IntelVerdict } from "../../ports/threat-intel.js";
import type { StixIndicator, StixOpinion } from "./bundle.js";

/**
 * Verdict rules for one matching indicator and for a set of them. The feed's words
 * (indicator_types, labels, opinions, confidence, validity) decide; descriptions never do.
 */
const MALICIOUS = new Set(["malicious-activity", "compromised", "attribution"]);
const SUSPICIOUS = new Set(["anomalous-activity", "unknown"]);
/** Below this confidence a malicious claim is only treated as suspicious. */
export const LOW_CONFIDENCE = 30;

export interface IndicatorAssessment {
  indicator: StixIndicator;
  verdict: IntelVerdict;
  /** valid_until has passed. */
  expired: boolean;
  /** When the feed last said this; newer statements settle conflicts. */
  asOf: number;
  notes: string[];
}

function timeOf(indicator: StixIndicator): number {
  const t = Date.parse(indicator.modified ?? indicator.created ?? indicator.valid_from ?? "");
  return Number.isNaN(t) ? 0 : t;
}

export function assessIndicator(
  indicator: StixIndicator,
  opts: { opinions: readonly StixOpinion[]; indicatesSomething: boolean; now: number },
): IndicatorAssessment {
  const words = [...(indicator.indicator_types ?? []), ...(indicator.labels ?? [])].map((w) =>
    w.toLowerCase(),
  );
  const notes: string[] = [];
  let verdict: IntelVerdict;
  if (words.includes("benign")) verdict = "benign";
  else if (words.some((w) => MALICIOUS.has(w))) verdict = "malicious";
  else if (words.some((w) => SUSPICIOUS.has(w))) verdict = "suspicious";
  // A feed entry that says nothing about intent is still a listing: suspicious, or
  // malicious when the feed ties it to malware or an actor.
  else verdict = opts.indicatesSomething ? "malicious" : "suspicious";

  if (
    verdict === "malicious" &&
    indicator.confidence !== undefined &&
    indicator.confidence < LOW_CONFIDENCE
  ) {
    verdict = "suspicious";
    notes.push(`low confidence (${indicator.confidence})`);
  }
  const agree = opts.opinions.filter((o) => o.opinion === "agree" || o.opinion === "strongly-agree").length;
  const disagree = opts.opinions.filter(
    (o) => o.opinion === "disagree" || o.opinion === "strongly-disagree",
  ).length;
  if (disagree > agree && verdict === "malicious") {
    verdict = "suspicious";
    notes.push("analysts disagree with it");
  }
  if (verdict === "benign" && agree > 0) notes.push("analysts confirm it is benign");

  const validUntil = indicator.valid_until ? Date.parse(indicator.valid_until) : Number.POSITIVE_INFINITY;
  const expired = validUntil < opts.now;
  if (expired) {
    notes.push(`expired ${indicator.valid_until}`);
    if (verdict === "malicious") verdict = "suspicious";
  }
  return { indicator, verdict, expired, asOf: timeOf(indicator), notes };
}

const RANK: Record<IntelVerdict, number> = { unknown: 0, benign: 1, suspicious: 2, malicious: 3 };

/**
 * Combines the indicators that matched one lookup. Current indicators outrank expired
 * ones; an expired benign statement says nothing. When current benign and harmful
 * statements conflict, the newer side wins (a sinkholed domain, a re-listed IP) and the
 * report is tagged so a person sees the conflict.
 */
export function combineAssessments(assessments: readonly IndicatorAssessment[]): {
  verdict: IntelVerdict;
  deciding: IndicatorAssessment | undefined;
  conflicting: boolean;
} {
  const current = assessments.filter((a) => !a.expired);
  const pool = current.length > 0 ? current : assessments.filter((a) => a.verdict !== "benign");
  if (pool.length === 0) return { verdict: "unknown", deciding: undefined, conflicting: false };
  const benign = pool.filter((a) => a.verdict === "benign");
  const harmful = pool.filter((a) => a.verdict !== "benign");
  const newest = (list: readonly IndicatorAssessment[]) => list.reduce((a, b) => (b.asOf > a.asOf ? b : a));
  const worst = (list: readonly IndicatorAssessment[]) =>
    list.reduce((a, b) => (RANK[b.verdict] > RANK[a.verdict] ? b : a));
  if (benign.length > 0 && harmful.length > 0) {
    const latestBenign = newest(benign);
    const latestHarmful = newest(harmful);
    const deciding = latestBenign.asOf > latestHarmful.asOf ? latestBenign : worst(harmful);
    return { verdict: deciding.verdict, deciding, conflicting: true };
  }
  const deciding = harmful.length > 0 ? worst(harmful) : newest(benign);
  return { verdict: deciding.verdict, deciding, conflicting: false };
}

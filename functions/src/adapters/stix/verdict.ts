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

/** Clocks and time zones differ by hours; a statement dated further ahead is not believed. */
export const FUTURE_SKEW_MS = 24 * 60 * 60 * 1000;

export interface IndicatorAssessment {
  indicator: StixIndicator;
  verdict: IntelVerdict;
  /** Not in force: valid_until has passed, or valid_from is still ahead. */
  expired: boolean;
  /** When the feed last said this, for ordering statements; 0 when its date cannot be believed. */
  asOf: number;
  /** Who said it (created_by_ref); statements without one belong to the bundle's publisher. */
  producer: string;
  notes: string[];
}

const UNATTRIBUTED = "(bundle publisher)";

function parseTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * The statement's date for ordering. A date in the future (beyond FUTURE_SKEW_MS) is how a
 * hostile entry would make itself "the newest"; it is not clamped to now (which would still
 * win over yesterday's listing) but not used at all: the statement orders as undated.
 */
function timeOf(indicator: StixIndicator, now: number, notes: string[]): number {
  const raw = indicator.modified ?? indicator.created ?? indicator.valid_from;
  const t = parseTime(raw);
  if (t === undefined) return 0;
  if (t > now + FUTURE_SKEW_MS) {
    notes.push(`dated in the future (${raw}), so not ordered by date`);
    return 0;
  }
  return t;
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

  const validUntil = parseTime(indicator.valid_until) ?? Number.POSITIVE_INFINITY;
  const validFrom = parseTime(indicator.valid_from) ?? Number.NEGATIVE_INFINITY;
  let expired = false;
  if (validUntil < opts.now) {
    expired = true;
    notes.push(`expired ${indicator.valid_until}`);
  } else if (validFrom > opts.now + FUTURE_SKEW_MS) {
    expired = true;
    notes.push(`not valid before ${indicator.valid_from}`);
  }
  if (expired && verdict === "malicious") verdict = "suspicious";
  const asOf = timeOf(indicator, opts.now, notes);
  return {
    indicator,
    verdict,
    expired,
    asOf,
    producer: indicator.created_by_ref ?? UNATTRIBUTED,
    notes,
  };
}

const RANK: Record<IntelVerdict, number> = { unknown: 0, benign: 1, suspicious: 2, malicious: 3 };

/**
 * Combines the indicators that matched one lookup.
 *
 * - Statements in force outrank expired or not-yet-valid ones; a benign statement out of
 *   force says nothing.
 * - A benign statement **retracts** a harmful one only when it comes from the same producer
 *   and is newer (a feed that sinkholed or delisted its own entry). A benign statement from
 *   anyone else — one hostile feed entry among many — retracts nothing, whatever its date.
 * - Harmful statements left standing decide (the worst of them); the report is tagged
 *   `conflicting-intel` whenever benign and harmful statements both matched, so a person
 *   sees the conflict either way.
 */
export function combineAssessments(assessments: readonly IndicatorAssessment[]): {
  verdict: IntelVerdict;
  deciding: IndicatorAssessment | undefined;
  conflicting: boolean;
  retracted: number;
} {
  const current = assessments.filter((a) => !a.expired);
  const pool = current.length > 0 ? current : assessments.filter((a) => a.verdict !== "benign");
  if (pool.length === 0) return { verdict: "unknown", deciding: undefined, conflicting: false, retracted: 0 };
  const benign = pool.filter((a) => a.verdict === "benign");
  const harmful = pool.filter((a) => a.verdict !== "benign");
  const newest = (list: readonly IndicatorAssessment[]) => list.reduce((a, b) => (b.asOf > a.asOf ? b : a));
  const worst = (list: readonly IndicatorAssessment[]) =>
    list.reduce((a, b) => (RANK[b.verdict] > RANK[a.verdict] ? b : a));
  if (benign.length > 0 && harmful.length > 0) {
    const retracts = (b: IndicatorAssessment, h: IndicatorAssessment) =>
      b.producer === h.producer && b.asOf > h.asOf;
    const standing = harmful.filter((h) => !benign.some((b) => retracts(b, h)));
    const retracted = harmful.length - standing.length;
    if (standing.length > 0) {
      const deciding = worst(standing);
      return { verdict: deciding.verdict, deciding, conflicting: true, retracted };
    }
    const deciding = newest(benign.filter((b) => harmful.some((h) => retracts(b, h))));
    return { verdict: "benign", deciding, conflicting: true, retracted };
  }
  const deciding = harmful.length > 0 ? worst(harmful) : newest(benign);
  return { verdict: deciding.verdict, deciding, conflicting: false, retracted: 0 };
}

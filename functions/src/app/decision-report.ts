import { currentDecision } from "../domain/analyst.js";
import type { Verdict } from "../domain/conclusion.js";
import type { Investigation } from "../domain/investigation.js";

export interface AgreementRow {
  key: string;
  /** Investigations with a verdict and an analyst decision. */
  decided: number;
  agreed: number;
  /** agreed / decided, or null when nothing was decided. */
  rate: number | null;
}

export interface DecisionReport {
  investigations: number;
  withVerdict: number;
  decided: number;
  agreement: { overall: AgreementRow; byCategory: AgreementRow[]; byModel: AgreementRow[] };
  disputed: {
    investigationId: string;
    category: string;
    ferretVerdict: Verdict;
    analystVerdict: Verdict | null;
    by: string;
    reason: string;
    at: string;
  }[];
  /** Seconds from the investigation's creation to ferret's conclusion. */
  timeToVerdictSeconds: { count: number; median: number | null; p90: number | null; max: number | null };
}

/**
 * How far analysts agree with ferret: the latest confirm-or-dispute per investigation against
 * ferret's verdict, overall, per finding category and per model (an offline conclusion counts
 * as "offline"), the disputed verdicts, and how long a verdict took.
 */
export function decisionReport(investigations: readonly Investigation[]): DecisionReport {
  const rows = { overall: new Map<string, [number, number]>(), category: new Map(), model: new Map() } as {
    overall: Map<string, [number, number]>;
    category: Map<string, [number, number]>;
    model: Map<string, [number, number]>;
  };
  const disputed: DecisionReport["disputed"] = [];
  const durations: number[] = [];
  let withVerdict = 0;
  let decided = 0;
  for (const inv of investigations) {
    const c = inv.conclusion;
    if (!c) continue;
    withVerdict += 1;
    const seconds = (Date.parse(c.createdAt) - Date.parse(inv.createdAt)) / 1000;
    if (Number.isFinite(seconds) && seconds >= 0) durations.push(seconds);
    const decision = currentDecision(inv.analystDecisions);
    if (!decision) continue;
    decided += 1;
    const agreed = decision.kind === "confirm" || decision.verdict === c.verdict;
    const model = c.producedBy.offline ? "offline" : c.producedBy.model;
    for (const [map, key] of [
      [rows.overall, "all"],
      [rows.category, inv.finding.category || "(none)"],
      [rows.model, model],
    ] as const) {
      const [d, a] = map.get(key) ?? [0, 0];
      map.set(key, [d + 1, a + (agreed ? 1 : 0)]);
    }
    if (!agreed) {
      disputed.push({
        investigationId: inv.id,
        category: inv.finding.category,
        ferretVerdict: c.verdict,
        analystVerdict: decision.verdict ?? null,
        by: decision.by.name ?? decision.by.id,
        reason: decision.reason ?? "",
        at: decision.at,
      });
    }
  }
  const toRows = (map: Map<string, [number, number]>): AgreementRow[] =>
    [...map]
      .map(([key, [d, a]]) => ({ key, decided: d, agreed: a, rate: d > 0 ? a / d : null }))
      .sort((x, y) => y.decided - x.decided || x.key.localeCompare(y.key));
  return {
    investigations: investigations.length,
    withVerdict,
    decided,
    agreement: {
      overall: toRows(rows.overall)[0] ?? { key: "all", decided: 0, agreed: 0, rate: null },
      byCategory: toRows(rows.category),
      byModel: toRows(rows.model),
    },
    disputed: disputed.sort((a, b) => Date.parse(b.at) - Date.parse(a.at)),
    timeToVerdictSeconds: percentiles(durations),
  };
}

function percentiles(values: number[]): DecisionReport["timeToVerdictSeconds"] {
  if (values.length === 0) return { count: 0, median: null, p90: null, max: null };
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest-rank: the smallest value at or above the share of the data.
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? null;
  return { count: sorted.length, median: rank(0.5), p90: rank(0.9), max: sorted.at(-1) ?? null };
}

import type { ConclusionDraft, Verdict } from "../../domain/conclusion.js";
import type { Severity } from "../../domain/finding/finding.js";
import type { Ioc } from "../../domain/ioc.js";
import type { ActionTool } from "../../domain/response-actions.js";
import { factOf } from "../evidence/facts.js";
import type { Evidence } from "../evidence/types.js";
import type { Subject } from "../subject.js";
import type { EvidenceIndex, Located } from "./evidence-index.js";

export type Support = ConclusionDraft["keyFindings"][number]["evidence"][number];
export type KeyFinding = ConclusionDraft["keyFindings"][number];
export type Mitre = ConclusionDraft["mitre"][number];
/**
 * A recommendation as a rule writes it; `respondWith` names the built-in response action that
 * carries it out, linked (with its arguments) when the finding names the target.
 */
export type Action = Omit<ConclusionDraft["recommendedActions"][number], "link"> & {
  respondWith?: ActionTool;
};

/** What a family's verdict rules decided, before it is dressed as a conclusion. */
export interface Decision {
  verdict: Verdict;
  confidence: number;
  severity: Severity;
  /** The rule that fired, in one sentence; leads the summary. */
  rule: string;
  /**
   * The decisive evidence in one sentence of words, for the verdict card; rules that can name
   * concrete facts set it, the others get the rule's own words (concluder/why.ts).
   */
  why?: string;
  findings: KeyFinding[];
  mitre: Mitre[];
  actions: Action[];
  openQuestions: string[];
  iocs: Ioc[];
  /**
   * For a dismissal: the independent signals it rests on, one name per source
   * (corroboration.ts turns a dismissal with fewer than two into inconclusive).
   */
  signals?: string[];
}

export type FamilyRules = (subject: Subject, index: EvidenceIndex) => Decision;

export function support(item: Located, detail?: string): Support {
  return { stepId: item.stepId, source: item.source, detail: detail ?? factOf(item.evidence, item.source) };
}

export function keyFinding(
  claim: string,
  items: readonly Located[],
  fallback?: Support,
): KeyFinding | undefined {
  const evidence = items.slice(0, 5).map((i) => support(i));
  if (evidence.length === 0 && fallback) evidence.push(fallback);
  return evidence.length > 0 ? { finding: claim, evidence } : undefined;
}

/** Evidence that something was looked for and not found, tied to the step that looked. */
export function absence(index: EvidenceIndex, source: RegExp, what: string): Support | undefined {
  const q = index.queries.find((x) => x.ok && source.test(x.source));
  return q
    ? {
        stepId: q.stepId,
        source: q.source,
        detail: `${what}: the query ran and returned no matching activity`,
      }
    : undefined;
}

/**
 * How many events the items stand for. Several steps often see the same activity (flows to an
 * IP and flows from the VM), so per-step totals are compared, never added across steps.
 */
export function sumCount(items: readonly Located<Evidence>[]): number {
  const perStep = new Map<string, number>();
  for (const i of items)
    perStep.set(i.stepId, (perStep.get(i.stepId) ?? 0) + ("count" in i.evidence ? i.evidence.count : 1));
  return Math.max(0, ...perStep.values());
}

/** More independent signals → more confidence, within the rule's ceiling. */
export function confidenceFrom(base: number, extraSignals: number, ceiling = 0.95): number {
  return Math.round(Math.min(ceiling, base + 0.04 * Math.max(0, extraSignals)) * 100) / 100;
}

export function dropAbsent<T>(values: readonly (T | undefined | false)[]): T[] {
  return values.filter((v): v is T => v !== undefined && v !== false);
}

export function spanText(items: readonly Located<Evidence>[]): string {
  const firsts = items
    .map((i) => ("first" in i.evidence ? i.evidence.first : undefined))
    .filter((t): t is string => Boolean(t))
    .sort();
  const lasts = items
    .map((i) => ("last" in i.evidence ? i.evidence.last : undefined))
    .filter((t): t is string => Boolean(t))
    .sort();
  const first = firsts[0];
  const last = lasts.at(-1);
  return first && last ? ` from ${first} to ${last}` : "";
}

import type { ConcluderBrief } from "../../agent/briefs.js";
import type { ConclusionDraft } from "../../domain/conclusion.js";
import type { Finding } from "../../domain/finding/finding.js";
import { type Ioc, mergeIocs } from "../../domain/ioc.js";
import { coverageGap } from "../../domain/log-coverage.js";
import type { Plan } from "../../domain/plan.js";
import type { StepResult } from "../../domain/results.js";
import { linkFor } from "../../tools/actions/links.js";
import { findingPhrase } from "../families.js";
import { isPublicIp } from "../net.js";
import { marked } from "../provenance.js";
import { type Subject, subjectOf } from "../subject.js";
import { requireCorroboration } from "./corroboration.js";
import type { Decision } from "./decision.js";
import { enrichChain } from "./enrich.js";
import { EvidenceIndex } from "./evidence-index.js";
import { VERDICT_RULES } from "./rules/index.js";
import { severityReasonOf, whyOf } from "./why.js";

/** Below this (the reflector's "achieved" bar), a stopped investigation does not get a decisive verdict. */
const NEEDS_HUMAN_FLOOR = 0.75;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The finding's own indicators always travel with the conclusion (after the ones the
 * evidence tied to the activity), with the verdict in their context, so a responder can
 * hunt for them or see why no action is needed.
 */
function findingIndicators(subject: Subject, verdict: string): Ioc[] {
  const context = `named by the finding; assessed ${verdict.replace("_", " ")}`;
  return [
    ...subject.domains.map((value): Ioc => ({ type: "domain", value, context })),
    ...subject.remoteIps.map((value): Ioc => ({ type: "ip", value, context })),
    ...subject.hashes.map((value): Ioc => ({ type: "hash", value, context })),
    ...(subject.callerIp && !subject.remoteIps.includes(subject.callerIp) && isPublicIp(subject.callerIp)
      ? [{ type: "ip" as const, value: subject.callerIp, context }]
      : []),
  ];
}

export interface Assessment {
  decision: Decision;
  index: EvidenceIndex;
}

/** The family's verdict rules over the evidence so far; the reflector asks the same question. */
export function assess(finding: Finding, results: readonly StepResult[]): Assessment {
  const subject = subjectOf(finding);
  const index = new EvidenceIndex(results);
  const decision = requireCorroboration(VERDICT_RULES[subject.family](subject, index));
  return { decision: enrichChain(decision, subject, index), index };
}

function notChecked(plan: Plan, results: readonly StepResult[]): string[] {
  const ran = new Map(results.map((r) => [r.stepId, r]));
  const skipped = plan.steps
    .filter((s) => s.status === "pending" || s.status === "cancelled" || s.status === "running")
    .map(
      (s) =>
        `Not checked: step ${s.id} (${s.status}${s.cancelReason ? `: ${s.cancelReason}` : ""}) — ${s.description.replace(/\s*\[plan:[^\]]*\]/, "")}`,
    );
  const empty = [...ran.values()]
    .filter((r) => r.outcome !== "answered")
    .map(
      (r) =>
        `Step ${r.stepId} ${r.outcome === "failed" ? "failed" : "found no data"}${r.error ? ` (${r.error})` : ""}; that source is unverified.`,
    );
  return [...skipped, ...empty];
}

/**
 * The conclusion, derived by the family's documented verdict rules from evidence re-read out
 * of the tool calls. In needs_human mode a verdict below NEEDS_HUMAN_FLOOR becomes
 * inconclusive and the summary says what was not checked.
 */
export function conclusionFor(brief: ConcluderBrief): ConclusionDraft {
  const subject = subjectOf(brief.finding);
  const { decision } = assess(brief.finding, brief.results);
  const stopped = brief.mode === "needs_human";
  const demoted = stopped && decision.verdict !== "inconclusive" && decision.confidence < NEEDS_HUMAN_FLOOR;
  const verdict = demoted ? "inconclusive" : decision.verdict;
  const confidence = stopped
    ? Math.max(0.1, Math.round((decision.confidence - 0.1) * 100) / 100)
    : decision.confidence;
  const gaps = notChecked(brief.plan, brief.results);
  const lead = decision.findings
    .slice(0, 3)
    .map((f) => f.finding)
    .join(" ");
  const summary = [
    `Verdict ${verdict} (confidence ${confidence.toFixed(2)}) for ${findingPhrase(subject.family, subject.category)}, decided by explicit rules over the tool evidence, not by an LLM.`,
    // Said once, here: the logs cannot reach the finding's time.
    coverageGap(brief.plan.logCoverage, subject.eventTime) ?? "",
    decision.rule,
    demoted
      ? `The investigation stopped before it finished, so the rule's ${decision.verdict} is held back as inconclusive.`
      : "",
    lead,
    stopped
      ? `Stopped early: ${brief.reason}. ${gaps.length ? `${gaps.length} check(s) did not complete.` : ""}`
      : "",
  ]
    .filter(Boolean)
    .join(" ");
  const openQuestions = [
    ...decision.openQuestions,
    ...(demoted ? [`Would the remaining checks confirm ${decision.verdict}?`] : []),
    ...(stopped || verdict === "inconclusive" ? gaps : []),
  ];
  const severity =
    verdict === "inconclusive" && decision.verdict !== "inconclusive" ? "MEDIUM" : decision.severity;
  const severityReason = severityReasonOf(verdict, severity, brief.finding.severity);
  return {
    verdict,
    confidence,
    severity,
    summary: clip(marked(summary), 3_000),
    why: clip(whyOf(decision, verdict), 300),
    ...(severityReason ? { severityReason } : {}),
    mitre: decision.mitre.slice(0, 10),
    keyFindings: decision.findings.slice(0, 10).map((f) => ({
      finding: clip(f.finding, 500),
      evidence: f.evidence.slice(0, 5).map((e) => ({
        ...(e.stepId ? { stepId: clip(e.stepId, 40) } : {}),
        source: clip(e.source, 100),
        detail: clip(e.detail, 500),
      })),
    })),
    iocs: mergeIocs(decision.iocs, findingIndicators(subject, verdict))
      .filter((i) => i.value.length > 0)
      .slice(0, 50)
      .map((i) => ({
        ...i,
        value: clip(i.value, 2048),
        ...(i.context ? { context: clip(i.context, 500) } : {}),
      })),
    recommendedActions: decision.actions.slice(0, 10).map(({ respondWith, ...a }) => {
      const link = respondWith ? linkFor(respondWith, brief.finding) : undefined;
      return { ...a, action: clip(a.action, 500), ...(link ? { link } : {}) };
    }),
    openQuestions: [...new Set(openQuestions)].slice(0, 10).map((q) => clip(q, 500)),
  };
}

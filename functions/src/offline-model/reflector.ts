import type { ReflectorBrief } from "../agent/briefs.js";
import { MAX_FIXED_CALLS, type Plan, type PlanUpdate, type Step, type StepDraft } from "../domain/plan.js";
import type { ReflectionDraft } from "../domain/reflection.js";
import { isActionTool } from "../domain/response-actions.js";
import type { StepResult } from "../domain/results.js";
import type { ToolDeclaration } from "../model/port.js";
import { assess } from "./concluder/index.js";
import { describeIntent } from "./describe.js";
import type { Intent, IntentKind } from "./intents.js";
import { isPublicIp } from "./net.js";
import { marked } from "./provenance.js";
import { callsForIntent } from "./step-executor/calls.js";
import { intentForStep } from "./step-executor/step-intent.js";
import { decodeIntent } from "./step-text.js";
import { type Subject, subjectOf } from "./subject.js";
import { intentFromSubject, intentIsUsable } from "./subject-intent.js";
import { widen } from "./time-window.js";
import { stepTools } from "./tool-choice.js";

/** A verdict this sure ends the investigation early. */
const ACHIEVED_AT = 0.75;
const MAX_NEW_INDICATORS = 10;

/** Where to look when a source came back empty or broken. */
const ALTERNATIVE: Record<IntentKind, IntentKind[]> = {
  intel: [],
  flows: ["dns", "host_logs"],
  egress: ["host_logs"],
  ingress: ["ssh_auth", "host_logs"],
  dns: ["flows", "host_logs"],
  ssh_auth: ["flows", "host_logs"],
  host_logs: ["resource_activity"],
  iam_changes: ["resource_activity", "principal_activity"],
  principal_activity: ["caller_activity", "resource_activity"],
  caller_activity: ["principal_activity"],
  resource_activity: ["principal_activity", "host_logs"],
  bucket_access: ["bucket_policy", "caller_activity"],
  bucket_policy: ["resource_activity"],
  // Questions with one source each: another table cannot answer them.
  principal_history: [],
  denied_allowed: [],
  lb_requests: [],
  logging_changes: [],
};

function slug(base: string, suffix: string): string {
  const id = `${base.slice(0, 40 - suffix.length - 1)}-${suffix}`;
  return id.replace(/[^a-z0-9_-]/g, "-");
}

class PlanDraftBook {
  readonly updates: PlanUpdate[] = [];
  private readonly ids: Set<string>;
  private room: number;

  constructor(
    plan: Plan,
    maxSteps: number,
    private readonly declarations: readonly ToolDeclaration[] = [],
  ) {
    this.ids = new Set(plan.steps.map((s) => s.id));
    this.room = Math.max(0, maxSteps - plan.steps.length);
  }

  /** Cancelled ids stay in the plan, so `has` also keeps them from coming back. */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  canAdd(): boolean {
    return this.room > 0 && this.updates.length < 10;
  }

  add(id: string, intent: Intent, tools: string[], expected: string, dependsOn: string[] = []): boolean {
    if (!this.canAdd() || this.has(id)) return false;
    const description = describeIntent(intent).slice(0, 1_000);
    this.updates.push({
      op: "add",
      step: { id, description, tools, expected, dependsOn, ...this.fixedCalls(intent, tools, description) },
    });
    this.ids.add(id);
    this.room -= 1;
    return true;
  }

  /**
   * A step added with every value in hand (an intel lookup of named indicators, a wider window,
   * another table about the finding's own subject) needs no step executor round: its calls are
   * fixed here, as the planner fixes its own steps', when the tools' schemas are known.
   */
  private fixedCalls(intent: Intent, tools: string[], description: string): Pick<StepDraft, "calls"> {
    const declarations = this.declarations.filter((d) => tools.includes(d.name));
    if (declarations.length === 0) return {};
    const planned = callsForIntent(intent, tools, declarations, description);
    if (planned.length === 0 || planned.length > MAX_FIXED_CALLS) return {};
    return { calls: planned.map((p) => ({ tool: p.name, args: p.args })) };
  }

  cancel(id: string, reason: string): void {
    if (this.updates.length < 10) this.updates.push({ op: "cancel", id, reason: reason.slice(0, 500) });
  }

  update(id: string, fields: { dependsOn: string[] }): void {
    if (this.updates.length < 10) this.updates.push({ op: "update", id, ...fields });
  }
}

function windowOf(intent: Intent, subject: Subject): { start: string; end: string } {
  const start = intent.params.start?.[0];
  const end = intent.params.end?.[0];
  return start && end ? { start, end } : subject.window;
}

/** A step whose every tool is a built-in response action (the offline planner plans no other acting tool). */
function isActingStep(step: Step): boolean {
  return step.tools.length > 0 && step.tools.every(isActionTool);
}

/**
 * Keeps the confirmed finding's response steps: each now waits only for the steps that are done
 * (the evidence the approver reads), not for the moot ones cancelled beside it. True when one is
 * kept.
 */
function keepResponse(
  acting: readonly Step[],
  plan: Plan,
  cancelled: readonly Step[],
  book: PlanDraftBook,
  notes: string[],
): boolean {
  const done = new Set(plan.steps.filter((st) => st.status === "done").map((st) => st.id));
  const dropped = new Set(cancelled.map((st) => st.id));
  let kept = false;
  for (const st of acting) {
    const dependsOn = st.dependsOn.filter((d) => done.has(d));
    if (st.dependsOn.some((d) => !done.has(d) && !dropped.has(d))) {
      // It waits on a step that failed or was cancelled earlier: it cannot run.
      book.cancel(st.id, "not acting: a step it depends on did not finish");
      continue;
    }
    if (dependsOn.length !== st.dependsOn.length) book.update(st.id, { dependsOn });
    notes.push(
      `${st.id} (${st.tools.join(", ")}) runs next: the evidence confirms the finding; a person approves or denies the call.`,
    );
    kept = true;
  }
  return kept;
}

/** One follow-up for an empty or failed step: a much wider window first for empty answers, another source first for errors. */
function followUp(
  step: Step,
  result: StepResult,
  brief: ReflectorBrief,
  subject: Subject,
  book: PlanDraftBook,
): string | undefined {
  const intent = decodeIntent(step.description) ?? intentForStep(step, brief.finding, [], step.tools);
  // With the tables' time spans known, an empty answer is absence or a window the logs never
  // reach: neither a wider window nor another table changes that.
  if (result.outcome !== "failed" && (intent.params.logs?.length || knowsCoverage(brief))) return undefined;
  const base = step.id.replace(/-(wide|alt\d*)$/, "");
  // The step executor already retried once over a 4x window; the reflector's retry goes another 4x.
  const wider = widen(widen(windowOf(intent, subject), subject.eventTime), subject.eventTime);
  const widened: Intent = {
    kind: intent.kind,
    params: { ...intent.params, start: [wider.start], end: [wider.end] },
  };
  const alternatives = ALTERNATIVE[intent.kind]
    .map((kind) => intentFromSubject(kind, subject, windowOf(intent, subject)))
    .filter(intentIsUsable);
  const wide = {
    id: slug(base, "wide"),
    intent: widened,
    why: `wider window ${wider.start} to ${wider.end}`,
  };
  const alts = alternatives.map((alt, i) => ({
    id: slug(base, i === 0 ? "alt" : `alt${i + 1}`),
    intent: alt,
    why: `another source (${alt.kind.replace(/_/g, " ")})`,
  }));
  const options =
    intent.kind === "intel" ? [] : result.outcome === "failed" ? [...alts, wide] : [wide, ...alts];
  for (const option of options) {
    if (step.id.endsWith("-wide") && option.intent === widened) continue;
    const tools = stepTools(option.intent.kind, brief.tools);
    if (!tools || book.has(option.id)) continue;
    const expected = `The evidence step ${step.id} could not provide (${result.outcome}), from ${option.why}.`;
    if (book.add(option.id, option.intent, tools, expected))
      return `${step.id} ${result.outcome === "failed" ? "failed" : "found nothing"}; added ${option.id} (${option.why}).`;
  }
  return undefined;
}

function knowsCoverage(brief: ReflectorBrief): boolean {
  return (brief.plan.logCoverage?.length ?? 0) > 0;
}

/** Indicators that results surfaced and no intel lookup has covered yet. */
function uncheckedIndicators(brief: ReflectorBrief, looked: ReadonlySet<string>): Intent | undefined {
  const ips: string[] = [];
  const domains: string[] = [];
  const hashes: string[] = [];
  for (const r of brief.results) {
    for (const ioc of r.iocs) {
      const key = ioc.value.toLowerCase();
      if (looked.has(key)) continue;
      if (ioc.type === "ip" && isPublicIp(ioc.value) && !ips.includes(ioc.value)) ips.push(ioc.value);
      if (ioc.type === "domain" && !domains.includes(key)) domains.push(key);
      if (ioc.type === "hash" && !hashes.includes(key)) hashes.push(key);
    }
  }
  const all = [...ips, ...domains, ...hashes].slice(0, MAX_NEW_INDICATORS);
  if (all.length === 0) return undefined;
  return {
    kind: "intel",
    params: {
      ...(ips.length ? { ips: ips.filter((v) => all.includes(v)) } : {}),
      ...(domains.length ? { domains: domains.filter((v) => all.includes(v)) } : {}),
      ...(hashes.length ? { hashes: hashes.filter((v) => all.includes(v)) } : {}),
    },
  };
}

/** Everything intel has answered on or a pending intel step will look up. */
function alreadyLooked(brief: ReflectorBrief): Set<string> {
  const out = new Set<string>();
  for (const r of brief.results) {
    for (const call of r.toolCalls) {
      if (!/intel|reputation/i.test(call.name)) continue;
      for (const v of JSON.stringify(call.args).match(/"value":"([^"]+)"/g) ?? [])
        out.add(v.slice(9, -1).toLowerCase());
    }
  }
  for (const step of brief.plan.steps) {
    if (step.status !== "pending" && step.status !== "running") continue;
    const intent = decodeIntent(step.description);
    if (intent?.kind !== "intel") continue;
    for (const v of [
      ...(intent.params.ips ?? []),
      ...(intent.params.domains ?? []),
      ...(intent.params.hashes ?? []),
    ])
      out.add(v.toLowerCase());
  }
  return out;
}

/**
 * Reflection by rules: achieved when the family's verdict rules are already decisive; otherwise
 * one follow-up per empty or failed step, an intel lookup for indicators the results surfaced,
 * and cancellation of steps that can no longer run. Budgets (revisions, step cap) are respected
 * here as well as in plan-rules.
 */
export function reflectionFor(brief: ReflectorBrief): ReflectionDraft {
  const s = subjectOf(brief.finding);
  const { decision } = assess(brief.finding, brief.results);
  const achieved = decision.verdict !== "inconclusive" && decision.confidence >= ACHIEVED_AT;
  const book = new PlanDraftBook(brief.plan, brief.maxSteps, brief.declarations);
  const notes: string[] = [];
  const canRevise = brief.revisionsLeft > 0;
  const pending = brief.plan.steps.filter((st) => st.status === "pending");

  // Steps still running (an early reflection, before the wave ended) stop before their next model round.
  const reported = new Set(brief.results.map((r) => r.stepId));
  const open = brief.plan.steps.filter(
    (st) => st.status === "pending" || (st.status === "running" && !reported.has(st.id)),
  );
  const acting = open.filter(isActingStep);
  const evidenceOpen = open.filter((st) => !isActingStep(st));
  // An acting step is the response to a confirmed finding: it runs (and waits for a person's
  // approval) only when the evidence decides true_positive, never on a dismissal or a doubt.
  const confirmed = achieved && decision.verdict === "true_positive";
  let responding = false;
  if (achieved && canRevise) {
    for (const st of evidenceOpen)
      book.cancel(st.id, `moot: the evidence already decides the verdict (${decision.verdict})`);
    if (confirmed) responding = keepResponse(acting, brief.plan, evidenceOpen, book, notes);
    else
      for (const st of acting)
        book.cancel(st.id, `not acting: the evidence points to ${decision.verdict}, not a confirmed finding`);
  }
  if (!achieved && canRevise) {
    const byId = new Map(brief.plan.steps.map((st) => [st.id, st]));
    const fresh = brief.results.filter(
      (r) => brief.justFinished.includes(r.stepId) && r.outcome !== "answered",
    );
    for (const result of fresh) {
      const step = byId.get(result.stepId);
      const note = step ? followUp(step, result, brief, s, book) : undefined;
      if (note) notes.push(note);
    }
    const unchecked = uncheckedIndicators(brief, alreadyLooked(brief));
    const tools = stepTools("intel", brief.tools);
    if (unchecked && tools) {
      const n = brief.plan.steps.filter((st) => st.id.startsWith("intel-new")).length + 1;
      const id = `intel-new-${n}`;
      if (
        book.add(
          id,
          unchecked,
          tools,
          "Intel verdicts for indicators the results surfaced: malicious ones widen the incident, benign ones close leads.",
        )
      ) {
        notes.push(`added ${id} to look up newly surfaced indicators.`);
      }
    }
    const failed = new Set(brief.results.filter((r) => r.status === "failed").map((r) => r.stepId));
    for (const st of pending) {
      const blocker = st.dependsOn.find((d) => failed.has(d));
      if (blocker)
        book.cancel(
          st.id,
          `depends on ${blocker}, which failed; a follow-up step covers that evidence instead`,
        );
    }
  }

  const nothingElseComing = evidenceOpen.length === 0 && !book.updates.some((u) => u.op === "add");
  // The last revision the plan may take: no later reflection could cancel the acting step, so it
  // would run (and ask a person) whatever the remaining checks find.
  const lastRevision = brief.revisionsLeft === 1;
  if (!achieved && canRevise && (nothingElseComing || lastRevision)) {
    // The evidence does not confirm the finding: a person is not asked to act on a doubt.
    for (const st of acting)
      book.cancel(
        st.id,
        `not acting: the evidence does not confirm the finding (${decision.verdict}, ${decision.confidence.toFixed(2)})`,
      );
  }

  const insights = [
    marked(decision.rule),
    ...decision.findings.slice(0, 6).map((f) => f.finding),
    ...notes,
  ].map((i) => i.slice(0, 500));
  const rationale = responding
    ? `The ${decision.verdict} rule is satisfied at confidence ${decision.confidence.toFixed(2)}; the response step runs next and waits for a person's approval before the conclusion.`
    : achieved
      ? `The ${decision.verdict} rule is satisfied at confidence ${decision.confidence.toFixed(2)}, so the objective is met${book.updates.length ? " and the remaining steps are moot" : ""}.`
      : !canRevise
        ? "No plan revisions are left; the remaining steps run as planned."
        : book.updates.length > 0
          ? `The evidence does not decide the verdict yet (${decision.verdict}, ${decision.confidence.toFixed(2)}); ${notes.join(" ")}`
          : `The evidence does not decide the verdict yet (${decision.verdict}, ${decision.confidence.toFixed(2)}); the planned steps continue.`;
  return {
    // Not achieved while a confirmed finding's response step is still to run: it runs first.
    achieved: achieved && !responding,
    insights: insights.slice(0, 10),
    updates: book.updates,
    rationale: marked(rationale).slice(0, 2_000),
  };
}

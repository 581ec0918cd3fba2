import type { PlannerBrief } from "../agent/briefs.js";
import { ModelOutputError } from "../domain/errors.js";
import { coverageGap, coverageOf, type TableCoverage } from "../domain/log-coverage.js";
import type { FixedCall, PlanDraft, StepDraft } from "../domain/plan.js";
import { MAX_FIXED_CALLS } from "../domain/plan.js";
import { describeIntent } from "./describe.js";
import { playbookPhrase } from "./families.js";
import { INTENT_TABLE, type Intent, tableAvailable } from "./intents.js";
import { kindQuestions, withKindQuestions } from "./playbooks/by-kind.js";
import { PLAYBOOKS, type StepSpec } from "./playbooks/index.js";
import { intelStep } from "./playbooks/types.js";
import { marked } from "./provenance.js";
import { responseStep } from "./respond.js";
import { callsForIntent } from "./step-executor/calls.js";
import { intentForStep, readsPriorResults } from "./step-executor/step-intent.js";
import { type Subject, subjectOf } from "./subject.js";
import { stepTools } from "./tool-choice.js";

/** The planner's brief with its tools and tables by name: the playbooks match on names only. */
type PlannerFacts = Omit<PlannerBrief, "tools" | "tables"> & { tools: string[]; tables: string[] };

const MAX_CONSTRAINTS = 8;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function toDraft(spec: StepSpec, tools: string[]): StepDraft {
  return {
    id: spec.id,
    description: clip(describeIntent(spec.intent), 1_000),
    tools,
    expected: clip(spec.expected, 500),
    dependsOn: spec.dependsOn ?? [],
  };
}

/**
 * The calls the offline step executor would make in its first round, fixed in the plan so the
 * step runs without a step executor round, when the tools' parameter schemas are known and the
 * step's values are its own: it reads nothing from earlier results (its values all come
 * from the finding; a `dependsOn` kept for order only does not count), and no step reads
 * its result. A step that does read one narrows its query with the facts and times its
 * dependency's step executor report states; a report written from tool summaries states counts
 * only, and the reader would search blind.
 */
function withFixedCalls(
  draft: StepDraft,
  brief: PlannerFacts,
  reads: { others: boolean; itself: boolean },
): StepDraft {
  const declarations = (brief.declarations ?? []).filter((d) => draft.tools.includes(d.name));
  if (declarations.length === 0 || reads.itself || reads.others) return draft;
  const step = { ...draft, status: "pending" as const, addedInRevision: 0 };
  const intent = intentForStep(step, brief.finding, [], draft.tools);
  const planned = callsForIntent(intent, draft.tools, declarations, draft.description);
  if (planned.length === 0 || planned.length > MAX_FIXED_CALLS) return draft;
  const calls: FixedCall[] = planned.map((p) => ({ tool: p.name, args: p.args }));
  return { ...draft, calls, ...(intent.kind === "intel" ? { decisive: true } : {}) };
}

/**
 * The table an intent reads, matched against the coverage list: the exact name first, then the
 * intent's table pattern (a dataset may name tables differently).
 */
function coverageState(intent: Intent, coverage: readonly TableCoverage[]) {
  if (intent.kind === "intel") return undefined;
  const target = INTENT_TABLE[intent.kind];
  const table =
    coverage.find((c) => c.table === target.name)?.table ??
    coverage.find((c) => target.pattern.test(c.table))?.table;
  const start = intent.params.start?.[0];
  const end = intent.params.end?.[0];
  if (!table || !start || !end) return undefined;
  return coverageOf(coverage, table, { start, end });
}

/**
 * With the tables' time spans known: a log step whose table cannot hold its window is left
 * out (kept, marked, only when nothing else could run), and the rest are marked so an empty
 * answer is read as absence instead of being searched for ever wider.
 */
function withCoverage(
  specs: readonly StepSpec[],
  coverage: readonly TableCoverage[] | undefined,
): StepSpec[] {
  if (!coverage || coverage.length === 0) return [...specs];
  const mark = (spec: StepSpec, logs: string): StepSpec => ({
    ...spec,
    intent: { ...spec.intent, params: { ...spec.intent.params, logs: [logs] } },
  });
  const kept: StepSpec[] = [];
  const outside: StepSpec[] = [];
  for (const spec of specs) {
    const state = coverageState(spec.intent, coverage);
    if (state === undefined || state === "unknown") kept.push(spec);
    else if (state === "covered" || state === "partial") kept.push(mark(spec, "covered"));
    else outside.push(mark(spec, "outside"));
  }
  const first = outside[0];
  return kept.length > 0 || !first ? kept : [unfiltered(first)];
}

/**
 * When no table holds the window, a search for the finding's terms can only come back empty;
 * what the one kept step can still tell is where the subject's own records end, so it reads
 * them without the narrowing (search terms, a read near an earlier lookup).
 */
function unfiltered(spec: StepSpec): StepSpec {
  const { terms: _terms, near: _near, ...params } = spec.intent.params;
  return { ...spec, intent: { ...spec.intent, params } };
}

/** Keeps the playbook's order, drops what the registry or the log tables cannot serve, then applies the cap. */
function selectSteps(specs: readonly StepSpec[], brief: PlannerFacts): StepDraft[] {
  const usable = specs.flatMap((spec) => {
    const tools = stepTools(spec.intent.kind, brief.tools);
    if (!tools || !tableAvailable(spec.intent.kind, brief.tables)) return [];
    const draft = toDraft(spec, tools);
    // Without a dependency there is nothing it is guaranteed to read: its values come from the finding.
    return [{ draft, readsPrior: draft.dependsOn.length > 0 && readsPriorResults(spec.intent) }];
  });
  const kept = usable.slice(0, Math.max(1, brief.maxSteps));
  const ids = new Set(kept.map((k) => k.draft.id));
  // A dependency on a step that was dropped would make the plan invalid; the step can still run on the finding's own values.
  const steps = kept.map(({ draft, readsPrior }) => ({
    draft: { ...draft, dependsOn: draft.dependsOn.filter((d) => ids.has(d)) },
    readsPrior,
  }));
  // Only a dependent that takes values from earlier results reads its dependencies; one that waits for order does not.
  const read = new Set(steps.filter((s) => s.readsPrior).flatMap((s) => s.draft.dependsOn));
  return steps.map(({ draft, readsPrior }) =>
    withFixedCalls(draft, brief, { others: read.has(draft.id), itself: readsPrior }),
  );
}

/**
 * When nothing in the playbook can run with the offered tools: the resource's own activity, a
 * question every finding can ask, with whatever tool serves it. A step with a tool but no
 * question the step executor can decode would run nothing, so there is no such fallback.
 */
function lastResort(subject: Subject, brief: PlannerFacts): StepDraft {
  const spec: StepSpec = {
    id: "resource-activity",
    intent: {
      kind: "resource_activity",
      params: {
        resource: [subject.auditResource],
        ...(subject.project ? { project: [subject.project] } : {}),
        start: [subject.window.start],
        end: [subject.window.end],
      },
    },
    expected: "Who touched the resource around the event, and from where.",
  };
  const tools = stepTools(spec.intent.kind, brief.tools);
  if (tools) return toDraft(spec, tools);
  const intel = intelStep("intel-iocs", subject, "A malicious verdict on any indicator of the finding.");
  const intelTools = intel && stepTools("intel", brief.tools);
  if (intel && intelTools) return toDraft(intel, intelTools);
  throw new ModelOutputError(
    "offline-playbook cannot plan: the planner context offers no tool that can query logs or intelligence",
    { role: "planner" },
  );
}

function constraintsFor(base: readonly string[], subject: Subject, brief: PlannerFacts): string[] {
  const related = brief.related
    .slice(0, 2)
    .map(
      (r) =>
        `Earlier investigation ${r.id} (${r.category}, verdict ${r.verdict ?? "none"}) shares ${r.sharedBy}; a lead, not evidence.`,
    );
  const fixed = brief.problems.length > 0 ? [`Re-planned to fix: ${brief.problems.join("; ")}`] : [];
  const gap = coverageGap(brief.coverage, subject.eventTime);
  const provenance = `Plan chosen by the offline playbook model from ${playbookPhrase(subject.family)}: rules, no LLM.`;
  return [provenance, ...(gap ? [gap] : []), ...base, ...fixed, ...related]
    .slice(0, MAX_CONSTRAINTS)
    .map((c) => clip(c, 300));
}

export function planFor(brief: PlannerBrief): PlanDraft {
  const context: PlannerFacts = {
    ...brief,
    tools: brief.tools.map((t) => t.name),
    tables: brief.tables.map((t) => t.name),
  };
  const subject = subjectOf(context.finding);
  const playbook = PLAYBOOKS[subject.family](subject);
  // Every finding gets the questions its named kinds bring, playbook or not (issue 37).
  const specs = withKindQuestions(playbook.steps, kindQuestions(subject));
  const offered = specs.filter(
    (spec) => stepTools(spec.intent.kind, context.tools) && tableAvailable(spec.intent.kind, context.tables),
  );
  // An enabled response action closes the plan: the questions by kind leave it a place under the
  // cap; the playbook's own steps keep theirs (evidence before acting on a tight cap).
  const canRespond = responseStep(subject.family, context.finding, context.tools, []) !== undefined;
  const own = new Set(playbook.steps.map((s) => s.id));
  const ownOffered = offered.filter((s) => own.has(s.id)).length;
  const room = canRespond
    ? Math.min(context.maxSteps, Math.max(ownOffered, context.maxSteps - 1, 1))
    : context.maxSteps;
  const selected = selectSteps(withCoverage(offered, context.coverage), { ...context, maxSteps: room });
  const evidence = selected.length > 0 ? selected : [lastResort(subject, context)];
  const respond =
    evidence.length < context.maxSteps
      ? responseStep(subject.family, context.finding, context.tools, evidence.map((s) => s.id).slice(-10))
      : undefined;
  const steps = respond ? [...evidence, respond] : evidence;
  return {
    objective: clip(marked(playbook.objective), 1_000),
    successCriteria: playbook.successCriteria.slice(0, 8).map((c) => clip(c, 300)),
    constraints: constraintsFor(playbook.constraints, subject, context),
    steps,
  };
}

import type { PlannerContext } from "../../agent/contexts.js";
import { ModelOutputError } from "../../domain/errors.js";
import type { PlanDraft, StepDraft } from "../../domain/plan.js";
import { describeIntent } from "./describe.js";
import { FAMILY_LABELS } from "./families.js";
import { tableAvailable } from "./intents.js";
import { PLAYBOOKS, type StepSpec } from "./playbooks/index.js";
import { marked } from "./provenance.js";
import { type Subject, subjectOf } from "./subject.js";
import { stepTools } from "./tool-choice.js";

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

/** Keeps the playbook's order, drops what the registry or the log tables cannot serve, then applies the cap. */
function selectSteps(specs: readonly StepSpec[], context: PlannerContext): StepDraft[] {
  const usable = specs.flatMap((spec) => {
    const tools = stepTools(spec.intent.kind, context.tools);
    if (!tools || !tableAvailable(spec.intent.kind, context.tables)) return [];
    return [toDraft(spec, tools)];
  });
  const kept = usable.slice(0, Math.max(1, context.maxSteps));
  const ids = new Set(kept.map((s) => s.id));
  // A dependency on a step that was dropped would make the plan invalid; the step can still run on the finding's own values.
  return kept.map((s) => ({ ...s, dependsOn: s.dependsOn.filter((d) => ids.has(d)) }));
}

/** When nothing in the playbook can run with the offered tools, one step with any tool is better than no plan. */
function lastResort(subject: Subject, context: PlannerContext): StepDraft {
  const tool = context.tools[0];
  if (!tool)
    throw new ModelOutputError("offline-playbook cannot plan: the planner context offers no tools", {
      purpose: "planner",
    });
  return {
    id: "inspect-finding",
    description: `Gather whatever ${tool} can tell about ${subject.resourceShort} and the finding's indicators (${[...subject.publicIps, ...subject.domains].join(", ") || "none named"}) between ${subject.window.start} and ${subject.window.end}.`,
    tools: [tool],
    expected: "Any record that confirms or refutes the finding's activity.",
    dependsOn: [],
  };
}

function constraintsFor(base: readonly string[], subject: Subject, context: PlannerContext): string[] {
  const related = context.related
    .slice(0, 2)
    .map(
      (r) =>
        `Earlier investigation ${r.id} (${r.category}, verdict ${r.verdict ?? "none"}) shares ${r.sharedBy}; a lead, not evidence.`,
    );
  const fixed = context.problems.length > 0 ? [`Re-planned to fix: ${context.problems.join("; ")}`] : [];
  const provenance = `Plan chosen by the offline playbook model from the ${FAMILY_LABELS[subject.family]} playbook: rules, no LLM.`;
  return [provenance, ...base, ...fixed, ...related].slice(0, MAX_CONSTRAINTS).map((c) => clip(c, 300));
}

export function planFor(context: PlannerContext): PlanDraft {
  const subject = subjectOf(context.finding);
  const playbook = PLAYBOOKS[subject.family](subject);
  const selected = selectSteps(playbook.steps, context);
  const steps = selected.length > 0 ? selected : [lastResort(subject, context)];
  return {
    objective: clip(marked(playbook.objective), 1_000),
    successCriteria: playbook.successCriteria.slice(0, 8).map((c) => clip(c, 300)),
    constraints: constraintsFor(playbook.constraints, subject, context),
    steps,
  };
}

import type { Plan, PlanDraft, PlanUpdate, Step, StepDraft } from "./plan.js";
import { referencesIn } from "./plan-refs.js";

/**
 * Plan construction and revision rules, shared by the planner and the reflector so a
 * revised plan obeys the same constraints as the first one (registry tools only, step
 * cap, no dangling or cyclic dependencies, cancelled steps kept).
 */
export interface PlanRules {
  allowedTools: readonly string[];
  maxSteps: number;
}

export function planProblems(steps: readonly StepDraft[], rules: PlanRules): string[] {
  const problems: string[] = [];
  if (steps.length > rules.maxSteps)
    problems.push(`the plan has ${steps.length} steps; at most ${rules.maxSteps} are allowed`);
  const ids = new Set<string>();
  for (const step of steps) {
    if (ids.has(step.id)) problems.push(`step id "${step.id}" is used twice`);
    ids.add(step.id);
  }
  for (const step of steps) {
    for (const tool of step.tools) {
      if (!rules.allowedTools.includes(tool)) {
        problems.push(
          `step "${step.id}" names unknown tool "${tool}"; available: ${rules.allowedTools.join(", ")}`,
        );
      }
    }
    for (const dep of step.dependsOn) {
      if (dep === step.id) problems.push(`step "${step.id}" depends on itself`);
      else if (!ids.has(dep)) problems.push(`step "${step.id}" depends on unknown step "${dep}"`);
    }
    problems.push(...fixedCallProblems(step));
  }
  const cycle = findCycle(steps);
  if (cycle) problems.push(`steps form a dependency cycle: ${cycle.join(" -> ")}`);
  return problems;
}

/**
 * A fixed call may only use its step's own tools (the toolbox checks the same when it runs),
 * and may only read the outputs of steps it depends on: otherwise the scheduler could run it
 * before the value exists.
 */
function fixedCallProblems(step: StepDraft): string[] {
  const problems: string[] = [];
  for (const call of step.calls ?? []) {
    if (!step.tools.includes(call.tool))
      problems.push(`step "${step.id}" fixes a call to "${call.tool}", which is not among its tools`);
    for (const ref of referencesIn(call.args)) {
      if ("error" in ref) problems.push(`step "${step.id}": ${ref.error}`);
      else if (ref.source === "step" && !step.dependsOn.includes(ref.stepId))
        problems.push(
          `step "${step.id}" reads ${ref.text} but does not depend on step "${ref.stepId}"; add it to dependsOn`,
        );
    }
  }
  return problems;
}

function findCycle(steps: readonly StepDraft[]): string[] | undefined {
  const deps = new Map(steps.map((s) => [s.id, s.dependsOn]));
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "done") return undefined;
    if (state.get(id) === "visiting") return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, "visiting");
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      const found = deps.has(dep) ? visit(dep) : undefined;
      if (found) return found;
    }
    stack.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const s of steps) {
    const found = visit(s.id);
    if (found) return found;
  }
  return undefined;
}

export function planFromDraft(draft: PlanDraft): Plan {
  return {
    objective: draft.objective,
    successCriteria: draft.successCriteria,
    constraints: draft.constraints,
    steps: draft.steps.map((s) => ({ ...s, status: "pending", addedInRevision: 0 })),
    revision: 0,
  };
}

export interface UpdateOutcome {
  plan: Plan;
  applied: PlanUpdate[];
  refused: { update: PlanUpdate; reason: string }[];
}

function sameApproach(a: StepDraft, b: StepDraft): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim();
  return (
    norm(a.description) === norm(b.description) &&
    [...a.tools].sort().join() === [...b.tools].sort().join() &&
    JSON.stringify(a.calls ?? []) === JSON.stringify(b.calls ?? [])
  );
}

/** An update that changes the tools drops fixed calls it does not restate: they may name the old tools. */
function callsOf(update: Extract<PlanUpdate, { op: "update" }>, step: StepDraft): Pick<StepDraft, "calls"> {
  if (update.calls) return { calls: update.calls };
  if (update.tools || !step.calls) return {};
  return { calls: step.calls };
}

/**
 * Applies a reflection's updates one by one; each is checked against the plan as it
 * stands, so a refused update never leaves the plan half-changed. A plan whose updates
 * were all refused keeps its revision number.
 */
export function applyPlanUpdates(
  plan: Plan,
  updates: readonly PlanUpdate[],
  rules: PlanRules & { maxRevisions: number },
): UpdateOutcome {
  const applied: PlanUpdate[] = [];
  const refused: UpdateOutcome["refused"] = [];
  if (updates.length === 0) return { plan, applied, refused };
  if (plan.revision >= rules.maxRevisions) {
    return {
      plan,
      applied,
      refused: updates.map((update) => ({
        update,
        reason: `revision budget of ${rules.maxRevisions} is used up`,
      })),
    };
  }
  const nextRevision = plan.revision + 1;
  let steps: Step[] = plan.steps.map((s) => ({ ...s }));
  for (const update of updates) {
    const reason = refusal(steps, update, rules);
    if (reason) {
      refused.push({ update, reason });
      continue;
    }
    steps = applyOne(steps, update, nextRevision);
    applied.push(update);
  }
  if (applied.length === 0) return { plan, applied, refused };
  return { plan: { ...plan, steps, revision: nextRevision }, applied, refused };
}

function refusal(steps: readonly Step[], update: PlanUpdate, rules: PlanRules): string | undefined {
  const existing =
    update.op === "add" ? steps.find((s) => s.id === update.step.id) : steps.find((s) => s.id === update.id);
  if (update.op === "add") {
    if (existing) {
      return existing.status === "cancelled"
        ? `step "${existing.id}" was cancelled earlier and stays cancelled; use a new id for a different approach`
        : `step "${existing.id}" already exists`;
    }
    if (steps.length + 1 > rules.maxSteps)
      return `the plan already has ${steps.length} of ${rules.maxSteps} steps`;
    const failedTwin = steps.find((s) => s.status === "failed" && sameApproach(s, update.step));
    if (failedTwin)
      return `same approach as failed step "${failedTwin.id}"; change tools or parameters instead of repeating it`;
    const problems = planProblems([...steps, update.step], rules);
    return problems.length > 0 ? problems.join("; ") : undefined;
  }
  if (!existing) return `no step "${update.id}" in the plan`;
  // A running step can be cancelled: it stops before its next model round (runStepExecutor checks).
  if (update.op === "cancel" && existing.status === "running") return undefined;
  if (existing.status !== "pending")
    return `step "${update.id}" is ${existing.status}; only pending steps can change${update.op === "cancel" ? " or, if running, be cancelled" : ""}`;
  if (update.op === "cancel") return undefined;
  const { calls: _oldCalls, ...rest } = existing;
  const changed: StepDraft = {
    ...rest,
    description: update.description ?? existing.description,
    tools: update.tools ?? existing.tools,
    expected: update.expected ?? existing.expected,
    dependsOn: update.dependsOn ?? existing.dependsOn,
    ...callsOf(update, existing),
  };
  const failedTwin = steps.find((s) => s.status === "failed" && sameApproach(s, changed));
  if (failedTwin)
    return `same approach as failed step "${failedTwin.id}"; change tools or parameters instead of repeating it`;
  const problems = planProblems(
    steps.map((s) => (s.id === changed.id ? changed : s)),
    rules,
  );
  return problems.length > 0 ? problems.join("; ") : undefined;
}

function applyOne(steps: Step[], update: PlanUpdate, revision: number): Step[] {
  switch (update.op) {
    case "add":
      return [...steps, { ...update.step, status: "pending", addedInRevision: revision }];
    case "cancel":
      return steps.map((s) =>
        s.id === update.id ? { ...s, status: "cancelled", cancelReason: update.reason } : s,
      );
    case "update":
      return steps.map((step) => {
        if (step.id !== update.id) return step;
        const { calls: _oldCalls, ...s } = step;
        return {
          ...s,
          description: update.description ?? s.description,
          tools: update.tools ?? s.tools,
          expected: update.expected ?? s.expected,
          dependsOn: update.dependsOn ?? s.dependsOn,
          ...callsOf(update, step),
        };
      });
  }
}

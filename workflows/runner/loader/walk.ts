import type { Step, StepList } from "./ast.js";

/**
 * How a nested step list relates to its parent for jumps and scoping:
 * plain lists (nested steps, try/except, switch) are transparent; loop bodies and
 * parallel branches/iterations are boundaries a `next` cannot cross.
 */
export type Boundary = "plain" | "loop" | "branch" | "parallel-loop";

export interface ChildList {
  list: StepList;
  boundary: Boundary;
}

export function childLists(step: Step): ChildList[] {
  switch (step.kind) {
    case "steps":
      return [{ list: step.body, boundary: "plain" }];
    case "for":
      return [{ list: step.loop.body, boundary: "loop" }];
    case "parallel":
      return step.work.kind === "for"
        ? [{ list: step.work.loop.body, boundary: "parallel-loop" }]
        : step.work.branches.map((b) => ({ list: b.body, boundary: "branch" as const }));
    case "try": {
      const lists: ChildList[] = [{ list: step.body, boundary: "plain" }];
      if (step.except) lists.push({ list: step.except.body, boundary: "plain" });
      return lists;
    }
    case "switch":
      return step.cases.flatMap((c) => (c.steps ? [{ list: c.steps, boundary: "plain" as const }] : []));
    default:
      return [];
  }
}

/** Visits every step of a list and of all lists nested in it. */
export function forEachStep(list: StepList, visit: (step: Step) => void): void {
  for (const step of list.steps) {
    visit(step);
    for (const child of childLists(step)) forEachStep(child.list, visit);
  }
}

import { InvalidWorkflowError, UnsupportedConstructError } from "../errors.js";
import type { NextTarget, StepList } from "./ast.js";
import { type Boundary, childLists } from "./walk.js";

interface Frame {
  list: StepList;
  boundary: Boundary | "function";
}

/**
 * Verifies every `next`, `break`, `continue`, `end` and `return` against the lists
 * that enclose it, so that a bad jump is a load error rather than a runtime surprise.
 */
export function checkJumps(body: StepList): void {
  visit([{ list: body, boundary: "function" }]);
}

function visit(frames: Frame[]): void {
  const current = frames[frames.length - 1];
  if (!current) return;
  for (const step of current.list.steps) {
    if (step.next) checkTarget(step.next, frames, `${step.path}.next`);
    if (step.kind === "return") checkReturn(frames, step.path);
    if (step.kind === "switch") {
      for (const c of step.cases) {
        if (c.next) checkTarget(c.next, frames, `${c.path}.next`);
        if (c.returnValue) checkReturn(frames, `${c.path}.return`);
      }
    }
    for (const child of childLists(step)) visit([...frames, { list: child.list, boundary: child.boundary }]);
  }
}

function insideParallel(frames: Frame[]): boolean {
  return frames.some((f) => f.boundary === "branch" || f.boundary === "parallel-loop");
}

function checkReturn(frames: Frame[], path: string): void {
  if (insideParallel(frames)) {
    throw new UnsupportedConstructError(
      path,
      "return inside a parallel branch or iteration is not supported",
    );
  }
}

function checkTarget(target: NextTarget, frames: Frame[], path: string): void {
  const innermostFirst = [...frames].reverse();
  switch (target.kind) {
    case "end":
      if (insideParallel(frames)) {
        throw new UnsupportedConstructError(
          path,
          "next: end inside a parallel branch or iteration is not supported",
        );
      }
      return;
    case "step":
      for (const frame of innermostFirst) {
        if (frame.list.byName.has(target.name)) return;
        if (frame.boundary !== "plain") break;
      }
      throw new InvalidWorkflowError(path, `jump target '${target.name}' is not a step reachable from here`);
    case "break":
    case "continue":
      for (const frame of innermostFirst) {
        if (frame.boundary === "loop") return;
        if (frame.boundary === "parallel-loop") {
          if (target.kind === "continue") return;
          throw new UnsupportedConstructError(path, "break inside a parallel for loop is not supported");
        }
        if (frame.boundary !== "plain") break;
      }
      throw new InvalidWorkflowError(path, `next: ${target.kind} is only allowed inside a for loop`);
  }
}

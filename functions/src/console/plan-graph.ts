import type { Plan, StepStatus } from "../domain/plan.js";

/**
 * The plan as a left-to-right graph: a step's column is the length of the longest chain of
 * dependencies before it, so every arrow points right and a wave of independent steps shares
 * a column. Cancelled steps stay in the graph (the reflector cancelled them; they are part of
 * what happened). Only geometry and enum values come out of here; the labels are rendered by
 * the template as escaped text.
 */
/** One line of text in a box: the step id (wrapped, never cut), its status, its description. */
export interface GraphText {
  kind: "id" | "status" | "label";
  text: string;
  x: number;
  y: number;
}

export interface GraphNode {
  id: string;
  /** The full description, for the box's tooltip; the lines show at most LABEL_LINES of it. */
  description: string;
  status: StepStatus;
  x: number;
  y: number;
  text: GraphText[];
}

export interface GraphEdge {
  from: string;
  to: string;
  /** SVG path data, numbers only. */
  d: string;
  cancelled: boolean;
}

export interface PlanGraph {
  width: number;
  height: number;
  nodeWidth: number;
  nodeHeight: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/**
 * Node text is set in a monospace face (console.css), so a line's width is its length times
 * the face's advance (0.6 em, DejaVu Sans Mono and the common UI monospace faces) and text
 * is wrapped to fit the box here instead of running past its edge (issue 29: "cancelle…").
 */
const NODE_W = 250;
const PAD_X = 10;
const ID_FONT = 12;
const LABEL_FONT = 11;
const ADVANCE = 0.6;
const LINE_H = 15;
const LABEL_LINES = 4;
const GAP_X = 56;
const GAP_Y = 18;
const PAD = 8;
const ID_CHARS = Math.floor((NODE_W - 2 * PAD_X) / (ID_FONT * ADVANCE));
const LABEL_CHARS = Math.floor((NODE_W - 2 * PAD_X) / (LABEL_FONT * ADVANCE));

/** Words to lines of at most `width` characters; a word longer than a line is split. */
export function wrap(text: string, width: number, maxLines = Number.POSITIVE_INFINITY): string[] {
  const words = text.replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
  const lines: string[] = [];
  let current = "";
  for (let word of words) {
    while (word.length > width) {
      if (current) {
        lines.push(current);
        current = "";
      }
      lines.push(word.slice(0, width));
      word = word.slice(width);
    }
    if (!current) current = word;
    else if (current.length + 1 + word.length <= width) current += ` ${word}`;
    else {
      lines.push(current);
      current = word;
    }
  }
  if (current) lines.push(current);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = kept[maxLines - 1] ?? "";
  kept[maxLines - 1] = `${last.slice(0, width - 1)}…`;
  return kept;
}

export function planGraph(plan: Plan): PlanGraph {
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    // A cycle cannot pass validation, but a stored plan is data: never recurse forever.
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const deps = (byId.get(id)?.dependsOn ?? []).filter((d) => byId.has(d));
    const value = deps.length === 0 ? 0 : 1 + Math.max(...deps.map(depthOf));
    visiting.delete(id);
    depth.set(id, value);
    return value;
  };
  const lines = plan.steps.map((step) => [
    ...wrap(step.id, ID_CHARS).map((text) => ({ kind: "id" as const, text })),
    // The status is a line of its own, so "cancelled" is never cut.
    { kind: "status" as const, text: step.status },
    ...wrap(step.description, LABEL_CHARS, LABEL_LINES).map((text) => ({ kind: "label" as const, text })),
  ]);
  // One height for every box: the tallest text plus padding.
  const nodeHeight = 10 + LINE_H * Math.max(2, ...lines.map((l) => l.length));
  const rows = new Map<number, number>();
  const nodes: GraphNode[] = plan.steps.map((step, i) => {
    const column = depthOf(step.id);
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    const x = PAD + column * (NODE_W + GAP_X);
    const y = PAD + row * (nodeHeight + GAP_Y);
    return {
      id: step.id,
      description: step.description,
      status: step.status,
      x,
      y,
      text: (lines[i] ?? []).map((l, n) => ({ ...l, x: x + PAD_X, y: y + 4 + LINE_H * (n + 1) })),
    };
  });
  const at = new Map(nodes.map((n) => [n.id, n]));
  const edges: GraphEdge[] = [];
  for (const step of plan.steps) {
    const to = at.get(step.id);
    for (const dep of step.dependsOn) {
      const from = at.get(dep);
      if (!from || !to) continue;
      const x1 = from.x + NODE_W;
      const y1 = from.y + nodeHeight / 2;
      const x2 = to.x;
      const y2 = to.y + nodeHeight / 2;
      const mid = (x1 + x2) / 2;
      edges.push({
        from: dep,
        to: step.id,
        d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`,
        cancelled: from.status === "cancelled" || to.status === "cancelled",
      });
    }
  }
  const columns = Math.max(0, ...nodes.map((n) => depth.get(n.id) ?? 0)) + 1;
  const maxRows = Math.max(1, ...rows.values());
  return {
    width: PAD * 2 + columns * NODE_W + (columns - 1) * GAP_X,
    height: PAD * 2 + maxRows * nodeHeight + (maxRows - 1) * GAP_Y,
    nodeWidth: NODE_W,
    nodeHeight,
    nodes,
    edges,
  };
}

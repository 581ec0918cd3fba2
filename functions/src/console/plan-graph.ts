import type { Plan, StepStatus } from "../domain/plan.js";

/**
 * The plan as a left-to-right graph: a step's column is the length of the longest chain of
 * dependencies before it, so every arrow points right and a wave of independent steps shares
 * a column. Cancelled steps stay in the graph (the reflector cancelled them; they are part of
 * what happened). Only geometry and enum values come out of here; the labels are rendered by
 * the template as escaped text.
 */
export interface GraphNode {
  id: string;
  label: string;
  status: StepStatus;
  x: number;
  y: number;
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

const NODE_W = 190;
const NODE_H = 46;
const GAP_X = 56;
const GAP_Y = 18;
const PAD = 8;
const LABEL_CHARS = 26;

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
  const rows = new Map<number, number>();
  const nodes: GraphNode[] = plan.steps.map((step) => {
    const column = depthOf(step.id);
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    return {
      id: step.id,
      label: clip(step.description, LABEL_CHARS),
      status: step.status,
      x: PAD + column * (NODE_W + GAP_X),
      y: PAD + row * (NODE_H + GAP_Y),
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
      const y1 = from.y + NODE_H / 2;
      const x2 = to.x;
      const y2 = to.y + NODE_H / 2;
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
    height: PAD * 2 + maxRows * NODE_H + (maxRows - 1) * GAP_Y,
    nodeWidth: NODE_W,
    nodeHeight: NODE_H,
    nodes,
    edges,
  };
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

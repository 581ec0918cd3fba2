import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planGraph } from "../../../functions/src/console/plan-graph.js";
import type { Plan } from "../../../functions/src/domain/plan.js";

const step = (id: string, dependsOn: string[], status: Plan["steps"][number]["status"] = "done") => ({
  id,
  description: `step ${id} <b>bold</b> with a long description that is clipped`,
  tools: ["log_analysis"],
  expected: "x",
  dependsOn,
  status,
  addedInRevision: 0,
});

describe("plan graph", () => {
  const plan: Plan = {
    objective: "o",
    successCriteria: ["c"],
    constraints: [],
    revision: 1,
    steps: [
      step("a", []),
      step("b", []),
      step("c", ["a", "b"]),
      step("d", ["c"], "cancelled"),
      step("e", ["a", "ghost"]),
    ],
  };
  const g = planGraph(plan);
  const node = (id: string) => g.nodes.find((n) => n.id === id);

  it("puts a step one column right of its deepest dependency", () => {
    assert.equal(node("a")?.x, node("b")?.x);
    assert.ok((node("c")?.x ?? 0) > (node("a")?.x ?? 0));
    assert.ok((node("d")?.x ?? 0) > (node("c")?.x ?? 0));
    assert.equal(node("e")?.x, node("c")?.x, "an unknown dependency is ignored");
    assert.notEqual(node("a")?.y, node("b")?.y, "independent steps stack");
  });

  it("draws one edge per known dependency, dashed when a cancelled step is at either end", () => {
    assert.deepEqual(g.edges.map((e) => `${e.from}>${e.to}${e.cancelled ? "x" : ""}`).sort(), [
      "a>c",
      "a>e",
      "b>c",
      "c>dx",
    ]);
    for (const e of g.edges) assert.match(e.d, /^M[\d.]+,[\d.]+ C[\d.]+,[\d.]+ [\d.]+,[\d.]+ [\d.]+,[\d.]+$/);
  });

  it("keeps cancelled steps and clips labels", () => {
    assert.equal(node("d")?.status, "cancelled");
    assert.ok((node("a")?.label.length ?? 99) <= 26);
    assert.ok(g.width >= 3 * g.nodeWidth && g.height >= 2 * g.nodeHeight);
  });

  it("survives a cycle in stored data", () => {
    const cyclic = planGraph({ ...plan, steps: [step("x", ["y"]), step("y", ["x"])] });
    assert.equal(cyclic.nodes.length, 2);
  });
});

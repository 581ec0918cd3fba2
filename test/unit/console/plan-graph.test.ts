import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planGraph, wrap } from "../../../functions/src/console/plan-graph.js";
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

  it("keeps cancelled steps, with their status on a line of its own", () => {
    assert.equal(node("d")?.status, "cancelled");
    assert.deepEqual(
      node("d")
        ?.text.filter((t) => t.kind !== "label")
        .map((t) => t.text),
      ["d", "cancelled"],
    );
    assert.ok(g.width >= 3 * g.nodeWidth && g.height >= 2 * g.nodeHeight);
  });

  it("wraps every line inside its box: no text runs past the edge (issue 29: “cancelle…”)", () => {
    const long: Plan = {
      ...plan,
      steps: [
        step("resource-changes", [], "cancelled"),
        {
          ...step("a-step-id-that-is-longer-than-a-box-line-can-hold", ["resource-changes"]),
          description: "x".repeat(200),
        },
      ],
    };
    const graph = planGraph(long);
    // Node text is monospace at 0.6 em (console.css); 12 px ids, 11 px the rest.
    const width = (t: { kind: string; text: string }) => t.text.length * (t.kind === "id" ? 12 : 11) * 0.6;
    for (const n of graph.nodes) {
      assert.ok(n.text.length >= 3, "id, status and description");
      for (const t of n.text) {
        assert.ok(t.x + width(t) <= n.x + graph.nodeWidth, `"${t.text}" fits across`);
        assert.ok(t.y <= n.y + graph.nodeHeight, `"${t.text}" fits down`);
      }
    }
    const first = graph.nodes[0];
    assert.deepEqual(
      first?.text.filter((t) => t.kind !== "label").map((t) => t.text),
      ["resource-changes", "cancelled"],
      "id and status whole",
    );
    const labels = graph.nodes[1]?.text.filter((t) => t.kind === "label") ?? [];
    assert.ok(
      labels.length <= 4 && labels.at(-1)?.text.endsWith("…"),
      "a long description ends in … on its 4th line",
    );
  });

  it("wrap splits at spaces and breaks a word longer than a line", () => {
    assert.deepEqual(wrap("Query the VPC flow logs of etl-worker-1", 16), [
      "Query the VPC",
      "flow logs of",
      "etl-worker-1",
    ]);
    assert.deepEqual(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
    assert.deepEqual(wrap("a b c d e", 1, 2), ["a", "…"]);
  });

  it("survives a cycle in stored data", () => {
    const cyclic = planGraph({ ...plan, steps: [step("x", ["y"]), step("y", ["x"])] });
    assert.equal(cyclic.nodes.length, 2);
  });
});

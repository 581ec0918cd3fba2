import type { Plan } from "../../functions/src/domain/plan.js";
import type { Reflection } from "../../functions/src/domain/reflection.js";
import type { StepResult } from "../../functions/src/domain/results.js";

/**
 * How many model calls an investigation needed one after the other, at best and as run.
 *
 * The critical path is the longest chain of calls that depend on each other's output:
 * the plan; then steps in dependsOn order, each weighted by its own model rounds; a
 * reflection that added or changed a step before the step ran (the step cannot start
 * before it); the final reflection (it reads every result); the conclusion. No
 * orchestration of the same decisions can finish in fewer sequential calls.
 *
 * The wave depth is what ferret's wave schedule costs: per wave, its slowest step's rounds
 * plus the reflection that closes the wave.
 */
export interface TraceInput {
  plan: Plan;
  results: readonly StepResult[];
  reflections: readonly Reflection[];
  plannerCalls: number;
  concluderCalls: number;
}

export interface PathReport {
  /** Model calls on the longest dependent chain. */
  calls: number;
  /** That chain, e.g. ["plan", "dns-lookups×3", "flows-followup×2", "reflect@2", "conclude"]. */
  chain: string[];
}

interface Node {
  label: string;
  weight: number;
  preds: string[];
}

export function criticalPath(input: TraceInput): PathReport {
  const nodes = new Map<string, Node>();
  const executed = new Map(input.results.map((r) => [r.stepId, r]));
  const byWave = [...input.reflections].sort((a, b) => a.wave - b.wave);
  nodes.set("plan", { label: "plan", weight: input.plannerCalls, preds: [] });

  // Reflections that changed the plan, by the revision they produced.
  const revisers = byWave.filter((r) => r.applied.length > 0);
  const reviserKey = (r: Reflection) => `reflect@${r.wave}`;
  for (const r of revisers) {
    nodes.set(reviserKey(r), {
      label: reviserKey(r),
      weight: r.usage.llmCalls,
      preds: ["plan", ...r.afterSteps.filter((id) => executed.has(id)).map(stepKey)],
    });
  }
  for (const step of input.plan.steps) {
    const result = executed.get(step.id);
    if (!result) continue;
    const preds = ["plan", ...step.dependsOn.filter((d) => executed.has(d)).map(stepKey)];
    if (step.addedInRevision > 0) {
      const adder = revisers[step.addedInRevision - 1];
      if (adder) preds.push(reviserKey(adder));
    }
    for (const r of revisers) {
      const changed = r.applied.some((u) => u.op === "update" && u.id === step.id);
      if (changed && result.startedAt >= r.createdAt) preds.push(reviserKey(r));
    }
    nodes.set(stepKey(step.id), {
      label: `${step.id}×${result.usage.llmCalls}`,
      weight: result.usage.llmCalls,
      preds: [...new Set(preds)],
    });
  }
  // In plan order, so that among equally long chains the reported one does not depend on listing order.
  const allSteps = input.plan.steps.filter((s) => executed.has(s.id)).map((s) => stepKey(s.id));
  const last = byWave.at(-1);
  let beforeConclusion = allSteps.length > 0 ? allSteps : ["plan"];
  if (last) {
    // The final reflection reads the results that existed when it ran; a step it added (or one
    // that ran after it, when the last reflection was folded into the conclusion) comes after
    // it and reaches the conclusion directly. Making it a predecessor too would be a cycle.
    const key = last.applied.length > 0 ? reviserKey(last) : "reflect-final";
    const existing = nodes.get(key);
    const after = new Set(
      allSteps.filter((k) => (nodes.get(k)?.preds ?? []).includes(key) || !finishedBy(k, last, executed)),
    );
    const read = allSteps.filter((k) => !after.has(k));
    nodes.set(key, {
      label: `reflect@${last.wave}`,
      weight: last.usage.llmCalls,
      preds: [...new Set([...(existing?.preds ?? []), ...read])],
    });
    beforeConclusion = [key, ...after];
  }
  nodes.set("conclude", { label: "conclude", weight: input.concluderCalls, preds: beforeConclusion });
  return longest(nodes, "conclude");
}

/** Sequential calls under ferret's schedule: plan, per wave the slowest step plus its reflection, conclusion. */
export function waveDepth(input: TraceInput): number {
  const calls = new Map(input.results.map((r) => [r.stepId, r.usage.llmCalls]));
  const covered = new Set<string>();
  let depth = input.plannerCalls + input.concluderCalls;
  for (const r of [...input.reflections].sort((a, b) => a.wave - b.wave)) {
    const slowest = Math.max(0, ...r.afterSteps.map((id) => calls.get(id) ?? 0));
    for (const id of r.afterSteps) covered.add(id);
    depth += slowest + r.usage.llmCalls;
  }
  // Steps no reflection followed (reflection "on_error") ran in waves of their own.
  for (const [id, n] of calls) if (!covered.has(id)) depth += n;
  return depth;
}

/** Whether a step had finished when the reflection was made (by time; the step it followed counts). */
function finishedBy(key: string, r: Reflection, executed: ReadonlyMap<string, StepResult>): boolean {
  const id = key.slice("step:".length);
  if (r.afterSteps.includes(id)) return true;
  const result = executed.get(id);
  return result !== undefined && result.finishedAt <= r.createdAt;
}

function stepKey(id: string): string {
  return `step:${id}`;
}

function longest(nodes: Map<string, Node>, sink: string): PathReport {
  const memo = new Map<string, PathReport>();
  const visiting = new Set<string>();
  const visit = (key: string): PathReport => {
    const known = memo.get(key);
    if (known) return known;
    const node = nodes.get(key);
    if (!node) return { calls: 0, chain: [] };
    if (visiting.has(key)) throw new Error(`dependency cycle through ${key}`);
    visiting.add(key);
    let best: PathReport = { calls: 0, chain: [] };
    for (const pred of node.preds) {
      const candidate = visit(pred);
      if (candidate.calls > best.calls) best = candidate;
    }
    visiting.delete(key);
    const report = { calls: best.calls + node.weight, chain: [...best.chain, node.label] };
    memo.set(key, report);
    return report;
  };
  return visit(sink);
}

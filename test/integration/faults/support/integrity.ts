import type { Investigation, InvestigationEvent } from "../../../../functions/src/domain/investigation.js";
import type { Reflection } from "../../../../functions/src/domain/reflection.js";
import type { StepResult } from "../../../../functions/src/domain/results.js";
import type { InvestigationStore } from "../../../../functions/src/ports/investigation-store.js";

export interface Ledger {
  investigation: Investigation;
  results: StepResult[];
  reflections: Reflection[];
  events: InvestigationEvent[];
  /** Every way the stored state shows an effect applied twice or a gap; empty when exactly-once held. */
  problems: string[];
}

/**
 * Reads everything one investigation wrote and checks the exactly-once invariants the
 * operations promise: event seqs 1..eventSeq without gaps or repeats, one created/planned
 * and at most one terminal event, one step_finished per stored result and one stored result
 * per executed step, one reflection per wave (and one early one per decisive step) with one
 * reflected event each.
 */
export async function ledgerOf(store: InvestigationStore, id: string): Promise<Ledger> {
  const investigation = await store.require(id);
  const [results, reflections, events] = await Promise.all([
    store.listStepResults(id),
    store.listReflections(id),
    store.listEvents(id),
  ]);
  const problems: string[] = [];
  const seqs = events.map((e) => e.seq);
  const expected = Array.from({ length: investigation.eventSeq }, (_, i) => i + 1);
  if (JSON.stringify(seqs) !== JSON.stringify(expected))
    problems.push(`event seqs ${seqs.join(",")} are not 1..${investigation.eventSeq}`);
  const count = (type: InvestigationEvent["type"], stepId?: string) =>
    events.filter((e) => e.type === type && (stepId === undefined || e.stepId === stepId)).length;
  if (count("created") !== 1) problems.push(`${count("created")} created events`);
  if (investigation.plan && count("planned") !== 1) problems.push(`${count("planned")} planned events`);
  const terminal = count("concluded") + count("needs_human") + count("failed");
  if (terminal > 1) problems.push(`${terminal} terminal events`);
  for (const r of results) {
    if (count("step_finished", r.stepId) !== 1)
      problems.push(`step ${r.stepId}: ${count("step_finished", r.stepId)} step_finished events`);
  }
  if (count("step_finished") !== results.length)
    problems.push(`${count("step_finished")} step_finished events for ${results.length} results`);
  if (investigation.counters.stepsExecuted !== results.length)
    problems.push(`stepsExecuted ${investigation.counters.stepsExecuted} but ${results.length} results`);
  // One reflection per wave, plus at most one early reflection per decisive step (decision 0019).
  const waves = reflections.filter((r) => !r.early).map((r) => r.wave);
  if (new Set(waves).size !== waves.length) problems.push(`reflection waves repeat: ${waves.join(",")}`);
  const early = reflections.flatMap((r) => (r.early ? [r.early.stepId] : []));
  if (new Set(early).size !== early.length) problems.push(`early reflections repeat: ${early.join(",")}`);
  if (count("reflected") !== reflections.length)
    problems.push(`${count("reflected")} reflected events for ${reflections.length} reflections`);
  return { investigation, results, reflections, events, problems };
}

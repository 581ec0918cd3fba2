import type { StepResult } from "../../domain/results.js";
import { logAnalystQueries } from "../evidence/log-analyst.js";
import { mergeAcrossCalls, mergeEvidence } from "../evidence/merge.js";
import { isRowQuery, readCall } from "../evidence/read-call.js";
import type { Evidence } from "../evidence/types.js";
import { sourceOf } from "../step-executor/sources.js";

/** A piece of evidence with the step and source it came from, for key findings. */
export interface Located<E extends Evidence = Evidence> {
  evidence: E;
  stepId: string;
  source: string;
}

export interface QueryOutcome {
  stepId: string;
  source: string;
  ok: boolean;
  rows: number;
}

/**
 * All evidence of an investigation, re-read from the tool calls recorded on each step
 * result. Tool data is the same whoever ran the step, so the verdict rules work on steps
 * an LLM executed before the offline model took over.
 */
export class EvidenceIndex {
  readonly items: Located[] = [];
  readonly queries: QueryOutcome[] = [];

  constructor(results: readonly StepResult[]) {
    for (const result of results) {
      const perCall: Evidence[][] = [];
      const sources = new Map<Evidence, string>();
      for (const call of result.toolCalls) {
        const record = {
          name: call.name,
          args: call.args,
          ok: call.ok,
          summary: call.summary,
          data: call.data ?? null,
        };
        // A log-analysis answer counts as the queries the sub-agent ran.
        const records = logAnalystQueries(record)?.map((q) => q.record) ?? [record];
        for (const one of records) {
          const read = readCall(one);
          const source = sourceOf(one);
          if (isRowQuery(one))
            this.queries.push({ stepId: result.stepId, source, ok: one.ok, rows: read.rows ?? 0 });
          const merged = mergeEvidence(read.evidence);
          for (const e of merged) sources.set(e, source);
          perCall.push(merged);
        }
      }
      // Within a step, two queries that see the same activity count it once.
      for (const e of mergeAcrossCalls(perCall))
        this.items.push({ evidence: e, stepId: result.stepId, source: sources.get(e) ?? "tool" });
    }
  }

  of<K extends Evidence["kind"]>(kind: K): Located<Extract<Evidence, { kind: K }>>[] {
    return this.items.filter((i): i is Located<Extract<Evidence, { kind: K }>> => i.evidence.kind === kind);
  }

  /** The most severe intel answer for a value (malicious > suspicious > benign > unknown). */
  intelFor(value: string): Located<Extract<Evidence, { kind: "intel" }>> | undefined {
    const order = { malicious: 0, suspicious: 1, benign: 2, unknown: 3 };
    return this.of("intel")
      .filter((i) => i.evidence.value.toLowerCase() === value.toLowerCase())
      .sort((a, b) => order[a.evidence.verdict] - order[b.evidence.verdict])[0];
  }

  /** True when some query against a source whose name matches returned rows: the log is populated. */
  populated(source: RegExp): boolean {
    return this.queries.some((q) => q.ok && q.rows > 0 && source.test(q.source));
  }

  /** True when a query against a matching source ran without error (with or without rows). */
  queried(source: RegExp): boolean {
    return this.queries.some((q) => q.ok && source.test(q.source));
  }
}

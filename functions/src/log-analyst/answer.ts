import { type Ioc, mergeIocs } from "../domain/ioc.js";
import { type JsonObject, type JsonValue, jsonBytes } from "../domain/json.js";
import type { Usage } from "../domain/results.js";
import { parseJsonText } from "../model/structured.js";
import { capCell } from "../tools/log-pages.js";
import type { ToolOutput } from "../tools/port.js";
import { type LogAnalystAnswer, LogAnalystAnswerSchema } from "./contract.js";
import type { QueryRecord, SessionState } from "./session-state.js";

/** The answer the main agent reads is small: findings plus a few rows per query as checkable evidence. */
export const ANSWER_LIMITS = {
  /** Rows kept per query as evidence, before the byte budget trims them. */
  sampleRows: 10,
  /** Whole answer; below the step executor's 24 kB cap on one tool response. */
  maxBytes: 16_000,
  cellChars: 300,
  sqlChars: 1_500,
  maxQueries: 16,
  maxIocs: 50,
};

export function parseAnswer(text: string | undefined): LogAnalystAnswer | undefined {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return undefined;
  const answer = LogAnalystAnswerSchema.safeParse(parsed.value);
  return answer.success ? answer.data : undefined;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function totalRows(query: QueryRecord): number | undefined {
  return isObject(query.data) && typeof query.data.totalRows === "number" ? query.data.totalRows : undefined;
}

function labelOf(query: QueryRecord): string {
  if (typeof query.args.runbook === "string") return `runbook ${query.args.runbook}`;
  if (typeof query.args.field === "string") return `distinct values of ${String(query.args.field)}`;
  return query.tool;
}

/**
 * When the model leaves no usable answer (the cap came first, or its answer broke the
 * format twice), the session still reports what its queries showed, from the record
 * alone: nothing in it is invented.
 */
export function fallbackAnswer(state: SessionState, why: string): LogAnalystAnswer {
  const ran = state.queries;
  const withRows = ran.filter((q) => q.ok && (totalRows(q) ?? 0) > 0);
  const outcome: LogAnalystAnswer["outcome"] =
    withRows.length > 0 ? "answered" : ran.some((q) => q.ok) ? "no_data" : "failed";
  const facts = ran
    .slice(-20)
    .map((q) =>
      q.ok
        ? `${labelOf(q)}: ${totalRows(q) ?? 0} row(s)`
        : `${labelOf(q)} failed: ${q.summary.slice(0, 300)}`,
    );
  return {
    outcome,
    summary:
      `${why} ${ran.length} quer(ies) ran, ${withRows.length} with rows; the facts list them (row counts only, no interpretation).`.slice(
        0,
        2_000,
      ),
    facts,
    iocs: [],
    openQuestions: [
      "The question was not answered in full; ask again with a narrower question if it matters.",
    ],
  };
}

/** One query as the main agent sees it: what ran, how many rows, and the first few of them. */
function queryView(query: QueryRecord, sampleRows: number): JsonObject {
  const data = isObject(query.data) ? query.data : {};
  const rows = Array.isArray(data.rows) ? data.rows.slice(0, sampleRows) : [];
  const sql = typeof query.args.sql === "string" ? query.args.sql : undefined;
  return {
    tool: query.tool,
    ...(typeof query.args.runbook === "string" ? { runbook: query.args.runbook } : {}),
    ...(sql ? { sql: sql.slice(0, ANSWER_LIMITS.sqlChars) } : {}),
    ...(typeof query.args.table === "string" ? { table: query.args.table } : {}),
    ...(typeof query.args.field === "string" ? { field: query.args.field } : {}),
    ...(isObject(data.params)
      ? { params: data.params }
      : isObject(query.args.params)
        ? { params: query.args.params }
        : {}),
    ok: query.ok,
    ...(query.ok
      ? {
          totalRows: typeof data.totalRows === "number" ? data.totalRows : rows.length,
          ...(data.truncated === true ? { truncated: true } : {}),
          ...(Array.isArray(data.columns) ? { columns: data.columns } : {}),
          rows: rows.map((r) => capCell(r, ANSWER_LIMITS.cellChars)),
        }
      : { error: query.summary.slice(0, 500) }),
  };
}

export interface AnswerEnvelope {
  answer: LogAnalystAnswer;
  state: SessionState;
  iterations: number;
  maxIterations: number;
  capReached: boolean;
  stopped?: string;
  recalledMemoryIds: string[];
  sessionId: string;
  model: string;
  usage: Usage;
}

/**
 * The tool output handed to the main agent: the analyst's findings, then the queries it ran
 * (row counts and a few evidence rows each, trimmed until the whole answer fits its budget).
 * The rows come from the warehouse, not from the model, so a reader can check the facts.
 */
export function toolOutputOf(envelope: AnswerEnvelope): ToolOutput {
  const { answer, state } = envelope;
  const queries = state.queries.slice(-ANSWER_LIMITS.maxQueries);
  const omitted = state.queries.length - queries.length;
  const build = (sampleRows: number, kept: readonly QueryRecord[]): JsonObject => ({
    outcome: answer.outcome,
    summary: answer.summary,
    facts: answer.facts,
    iocs: answer.iocs,
    openQuestions: answer.openQuestions ?? [],
    queries: kept.map((q) => queryView(q, sampleRows)),
    ...(omitted + (queries.length - kept.length) > 0
      ? { queriesOmitted: omitted + (queries.length - kept.length) }
      : {}),
    iterations: envelope.iterations,
    maxIterations: envelope.maxIterations,
    capReached: envelope.capReached,
    ...(envelope.stopped ? { stopped: envelope.stopped } : {}),
    recalledMemoryIds: envelope.recalledMemoryIds,
    sessionId: envelope.sessionId,
    model: envelope.model,
    usage: { ...envelope.usage },
  });
  let sampleRows = ANSWER_LIMITS.sampleRows;
  let kept: QueryRecord[] = queries;
  let data = build(sampleRows, kept);
  while (jsonBytes(data) > ANSWER_LIMITS.maxBytes && (sampleRows > 0 || kept.length > 0)) {
    if (sampleRows > 0) sampleRows = Math.floor(sampleRows / 2);
    else kept = kept.slice(1);
    data = build(sampleRows, kept);
  }
  const iocs: Ioc[] = mergeIocs(answer.iocs, state.observedIocs).slice(0, ANSWER_LIMITS.maxIocs);
  const cap = envelope.capReached
    ? ` Stopped at the iteration cap of ${envelope.maxIterations} rounds; the answer may be partial.`
    : "";
  const stopped = envelope.stopped ? ` ${envelope.stopped}` : "";
  return {
    ok: answer.outcome !== "failed",
    summary: `log analysis (${answer.outcome}, ${state.queries.length} quer(ies)): ${answer.summary.slice(0, 600)}${cap}${stopped}`,
    data,
    iocs,
    usage: { ...envelope.usage },
  };
}

import type { LogAnalystBrief } from "../../agent/briefs.js";
import type { JsonObject } from "../../domain/json.js";
import type { StepReport } from "../../domain/results.js";
import { LOG_ANALYST_TOOLS as T } from "../../log-analyst/tool-names.js";
import type { Message, ToolCallRequest, ToolDeclaration } from "../../model/port.js";
import { readCall } from "../evidence/read-call.js";
import type { Intent } from "../intents.js";
import { probeFieldFor, sqlFor } from "../sql.js";
import { type CallTag, callId, tagOf } from "../step-executor/calls.js";
import { type Exchange, readExchanges, roundsDone } from "../step-executor/exchanges.js";
import { widenedIntent } from "../step-executor/recovery.js";
import { buildReport } from "../step-executor/report.js";
import { runbooksFor } from "../step-executor/runbooks.js";
import { intentForRequest } from "./intent.js";

export type OfflineLogAnalystAnswer =
  | { kind: "calls"; calls: ToolCallRequest[] }
  | { kind: "answer"; answer: StepReport };

export interface OfflineLogAnalystRequest {
  brief: LogAnalystBrief;
  messages: readonly Message[];
  tools: readonly ToolDeclaration[] | undefined;
  /** A repair or "answer now" request: never call tools again. */
  reportOnly: boolean;
}

interface Planned {
  name: string;
  args: JsonObject;
  tag: CallTag;
}

/** Runbook rows are aggregated and few: read them in one page. */
const PAGE = 100;
const ROW_TOOLS: readonly string[] = [T.runRunbook, T.runQuery];

/**
 * The questions an intent asks, as the analyst's tools take them: the runbooks that fit
 * (when the session offers them all), else the intent's own read-only SQL.
 */
function queriesFor(intent: Intent, brief: LogAnalystBrief, tag: CallTag): Planned[] {
  const runbooks = runbooksFor(intent);
  if (
    runbooks.length > 0 &&
    runbooks.every((r) => brief.runbooks.some((offered) => offered.name === r.runbook))
  )
    return runbooks.map((r) => ({
      name: T.runRunbook,
      args: { runbook: r.runbook, params: r.params, pageSize: PAGE },
      tag,
    }));
  return sqlFor(intent).map((q) => ({ name: T.runQuery, args: { sql: q.sql, pageSize: PAGE }, tag }));
}

function rowsOf(exchange: Exchange): number {
  return readCall(exchange.record).rows ?? 0;
}

/**
 * Unexpected result recovery, once, as the system prompt asks of any analyst: an empty
 * answer is asked again over a wider window next to the real values of the key field (was
 * the value wrong, or the log quiet?); a failure gets the table list and the question as
 * plain SQL. Answers with rows need no recovery.
 */
function recovery(exchanges: readonly Exchange[], intent: Intent, brief: LogAnalystBrief): Planned[] {
  const main = exchanges.filter((e) => tagOf(e.id) === "main" && ROW_TOOLS.includes(e.record.name));
  const empty = main.filter((e) => e.record.ok && rowsOf(e) === 0);
  const failed = main.filter((e) => !e.record.ok);
  if (main.length === 0 || empty.length + failed.length < main.length) return [];
  const out: Planned[] = [];
  if (empty.length > 0) {
    const wider = widenedIntent(intent, brief.finding.eventTime);
    out.push(...queriesFor(wider, brief, "wide"));
    const probe = probeFieldFor(intent.kind);
    const start = wider.params.start?.[0];
    const end = wider.params.end?.[0];
    if (probe && brief.tables.some((t) => t.name === probe.table))
      out.push({
        name: T.distinctValues,
        args: { table: probe.table, field: probe.column, ...(start && end ? { start, end } : {}) },
        tag: "probe",
      });
  }
  if (failed.length > 0) {
    out.push({ name: T.listTables, args: {}, tag: "tables" });
    if (failed.some((e) => typeof e.record.args.runbook === "string"))
      out.push(
        ...sqlFor(intent).map((q) => ({
          name: T.runQuery,
          args: { sql: q.sql, pageSize: PAGE },
          tag: "alt" as const,
        })),
      );
  }
  return out;
}

function toRequests(round: number, planned: readonly Planned[]): ToolCallRequest[] {
  return planned.map((p, i) => ({ id: callId("la", round, i, p.tag), name: p.name, args: p.args }));
}

/**
 * The offline log analyst, one answer per call: the request's queries, at most one recovery
 * round, then an answer built by the same evidence rules as a step report. It reads only
 * the brief and the tool responses; the request text is parsed for values, never obeyed.
 */
export function logAnalystAnswer(input: OfflineLogAnalystRequest): OfflineLogAnalystAnswer {
  const { brief } = input;
  const intent = intentForRequest(brief);
  const exchanges = readExchanges(input.messages);
  const offered = new Set((input.tools ?? []).map((t) => t.name));
  const canCall =
    !input.reportOnly && !brief.finalAnswerOnly && offered.size > 0 && brief.iteration <= brief.maxIterations;
  const rounds = Math.max(roundsDone(exchanges), brief.iteration - 1);
  const usable = (planned: Planned[]) => planned.filter((p) => offered.has(p.name));

  if (canCall && rounds === 0) {
    const planned = usable(queriesFor(intent, brief, "main"));
    if (planned.length > 0) return { kind: "calls", calls: toRequests(1, planned) };
    return {
      kind: "answer",
      answer: buildReport(
        [],
        intent,
        "The request names no value to query with (no IP, VM, principal, domain or bucket), so nothing was run.",
        "Log analysis",
      ),
    };
  }
  if (canCall && rounds === 1 && brief.iteration < brief.maxIterations) {
    const planned = usable(recovery(exchanges, intent, brief));
    if (planned.length > 0) return { kind: "calls", calls: toRequests(2, planned) };
  }
  return { kind: "answer", answer: buildReport(exchanges, intent, undefined, "Log analysis") };
}

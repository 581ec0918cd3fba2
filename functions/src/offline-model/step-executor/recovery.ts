import type { ToolDeclaration } from "../../model/port.js";
import { isRowQuery, readCall } from "../evidence/read-call.js";
import type { Intent } from "../intents.js";
import { distinctProbe, sqlFor } from "../sql.js";
import { widen } from "../time-window.js";
import { toolForIntent } from "../tool-choice.js";
import { type PlannedCall, sqlCalls, tagOf, withPageSize } from "./calls.js";
import { type LogToolShape, logToolShape } from "./declarations.js";
import type { Exchange } from "./exchanges.js";
import { runbookCalls } from "./runbooks.js";

export function widenedIntent(intent: Intent, eventTime: string): Intent {
  const start = intent.params.start?.[0];
  const end = intent.params.end?.[0];
  if (!start || !end) return intent;
  const wider = widen({ start, end }, eventTime);
  return { kind: intent.kind, params: { ...intent.params, start: [wider.start], end: [wider.end] } };
}

/**
 * "Unexpected result recovery", once per step: an empty answer is re-asked over a wider
 * window and the field's distinct values are listed (was the value wrong, or the log
 * empty?); an error gets the table list so the report can say what exists. Anything
 * else, or a second empty answer, is reported as it is.
 */
export function recoveryCalls(
  exchanges: readonly Exchange[],
  intent: Intent,
  stepTools: readonly string[],
  declarations: readonly ToolDeclaration[],
  eventTime: string,
): PlannedCall[] {
  const main = exchanges.filter((e) => tagOf(e.id) === "main" && isRowQuery(e.record));
  if (main.length === 0 || intent.kind === "intel") return [];
  const empty = main.filter((e) => e.record.ok && (readCall(e.record).rows ?? 0) === 0);
  const failed = main.filter((e) => !e.record.ok);
  // Recovery is for a step that learned nothing; one that has rows already answered its question.
  if (empty.length + failed.length < main.length) return [];
  // The planner knew the table's time span: an empty answer is absence (or the logs end), and a
  // wider window cannot change that.
  if (intent.params.logs?.length && failed.length === 0) return [];
  const tool = toolForIntent(intent.kind, stepTools);
  if (!tool) return [];
  const declaration = declarations.find((d) => d.name === tool);
  const shape: LogToolShape = declaration
    ? logToolShape(declaration)
    : { name: tool, sql: tool === "log_query", acceptsRunbook: false, runbooks: [] };
  const out: PlannedCall[] = [];
  const paged = (calls: PlannedCall[]) =>
    calls.map((c) => ({ ...c, args: withPageSize(declaration, c.args) }));
  if (empty.length > 0) {
    const wider = widenedIntent(intent, eventTime);
    const viaRunbook = runbookCalls(shape, wider);
    if (viaRunbook.length > 0)
      out.push(...paged(viaRunbook.map((args) => ({ name: tool, args, tag: "wide" as const }))));
    else if (shape.sql) out.push(...paged(sqlCalls(tool, sqlFor(wider), "wide")));
    const probe = distinctProbe(wider);
    if (probe && shape.sql) out.push(...paged(sqlCalls(tool, [probe], "probe")));
  }
  if (failed.length > 0) {
    if (stepTools.includes("log_tables")) out.push({ name: "log_tables", args: {}, tag: "tables" });
    // A runbook that failed may be fixed by the same question in plain SQL.
    const ranRunbook = failed.some((e) => typeof e.record.args.runbook === "string");
    if (ranRunbook && shape.sql) out.push(...paged(sqlCalls(tool, sqlFor(intent), "alt")));
  }
  return out;
}

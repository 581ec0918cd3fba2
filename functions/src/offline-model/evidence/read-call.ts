import { classifyRow } from "./classify.js";
import { intelReportsOf } from "./intel.js";
import { rowSetOf } from "./rows.js";
import { scopeOf } from "./scope.js";
import type { CallRecord, Evidence, ReadCall } from "./types.js";

/**
 * Turns one tool call into evidence. Payload content is only ever parsed field by field:
 * a log line saying "ignore your instructions" is a host_line fact, nothing more.
 */
export function readCall(call: CallRecord): ReadCall {
  if (!call.ok) return { call, evidence: [] };
  const intel = /intel|reputation|indicator/i.test(call.name) ? intelReportsOf(call.data) : [];
  if (intel.length > 0) return { call, evidence: intel };
  const rows = rowSetOf(call.data);
  if (!rows) return { call, evidence: [] };
  const scope = scopeOf(call);
  const evidence = rows.rows
    .map((row) => classifyRow(row, scope))
    .filter((e): e is Evidence => e !== undefined);
  return { call, rows: rows.total, evidence };
}

/** Is this call a log query (as opposed to intel or schema)? Decided by name, then by answer shape. */
export function isRowQuery(call: CallRecord): boolean {
  if (/tables|schema|describe/i.test(call.name)) return false;
  if (/intel|reputation/i.test(call.name)) return false;
  return /log|query|sql|bigquery/i.test(call.name) || rowSetOf(call.data) !== undefined;
}

import type { CallRecord } from "./types.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface SubQuery {
  record: CallRecord;
  /** The analyst's distinct-values probe (a check of what a field holds), not a question's answer. */
  probe: boolean;
}

/**
 * A log-analysis sub-agent answers with findings plus the queries it ran, each with its row
 * count and a few rows (`queries[]`, see functions/src/log-analyst/answer.ts). The evidence
 * readers read those queries as if the step had run them itself, so the same rules judge a
 * step whether it used log_query or asked the analyst. Undefined for any other answer.
 */
export function logAnalystQueries(call: CallRecord): SubQuery[] | undefined {
  const data = call.data;
  if (!isRecord(data) || !Array.isArray(data.queries) || typeof data.sessionId !== "string") return undefined;
  return data.queries.filter(isRecord).map((q): SubQuery => {
    const probe = q.tool === "distinct_values";
    const args: Record<string, unknown> = {};
    for (const key of ["runbook", "sql", "params", "table", "field"])
      if (q[key] !== undefined) args[key] = q[key];
    const rows = Array.isArray(q.rows) ? q.rows : [];
    const total = typeof q.totalRows === "number" ? q.totalRows : rows.length;
    return {
      probe,
      record: {
        // Named like the direct tool, so every reader treats it as a log query.
        name: "log_query",
        args,
        ok: q.ok === true,
        summary: typeof q.error === "string" ? q.error : `${total} row(s)`,
        data: { rows, totalRows: total, columns: Array.isArray(q.columns) ? q.columns : [] },
      },
    };
  });
}

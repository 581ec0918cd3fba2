import type { CallRecord } from "../evidence/types.js";

/** Where a fact came from, in words a responder recognises: the table, the runbook or the intel tool. */
export function sourceOf(call: CallRecord): string {
  if (typeof call.args.runbook === "string") return `runbook ${call.args.runbook}`;
  // The log analyst's distinct-values probe names its table and field instead of SQL.
  if (typeof call.args.table === "string" && typeof call.args.field === "string")
    return `${call.args.table} ${call.args.field}`;
  const sql =
    typeof call.args.sql === "string"
      ? call.args.sql
      : typeof call.args.query === "string"
        ? call.args.query
        : undefined;
  if (sql) {
    const tables = [...sql.matchAll(/\bFROM\s+`?([A-Za-z0-9_.-]+)`?/gi)].map(
      (m) => (m[1] ?? "").split(".").at(-1) ?? "",
    );
    const unique = [...new Set(tables.filter(Boolean))];
    if (unique.length > 0) return unique.join("+");
  }
  return call.name;
}

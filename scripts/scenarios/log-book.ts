import { type Row, TABLES, type TableName } from "./log-entries.js";

/** NULL fields are left out of a row, as BigQuery's JSON export does; the reader fills them in. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => [k, withoutNulls(v)]),
    );
  }
  return value;
}

/** Collects rows per table and writes them in time order, one JSON object per line. */
export class LogBook {
  private readonly tables = new Map<TableName, Row[]>();

  add(table: TableName, row: Row): void {
    const rows = this.tables.get(table) ?? [];
    rows.push(row);
    this.tables.set(table, rows);
  }

  count(table: TableName): number {
    return this.tables.get(table)?.length ?? 0;
  }

  /** Files keyed by name (`<table>.jsonl`); every known table gets a file, empty or not. */
  files(): Map<string, string> {
    const out = new Map<string, string>();
    for (const table of Object.values(TABLES)) {
      const rows = [...(this.tables.get(table) ?? [])].sort(
        (a, b) =>
          a.timestamp.localeCompare(b.timestamp) || String(a.insertId).localeCompare(String(b.insertId)),
      );
      out.set(`${table}.jsonl`, rows.map((r) => `${JSON.stringify(withoutNulls(r))}\n`).join(""));
    }
    return out;
  }
}

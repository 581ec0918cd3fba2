/** Row sets come back as {rows: [...]} (the warehouse shape) or a bare array; anything else is not a row answer. */
export interface RowSet {
  rows: Record<string, unknown>[];
  /** Rows in the whole result when the tool paged it, else the rows seen. */
  total: number;
  columns: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function records(value: unknown): Record<string, unknown>[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.every(isRecord) ? value : undefined;
}

export function rowSetOf(data: unknown): RowSet | undefined {
  const direct = records(data);
  if (direct) return { rows: direct, total: direct.length, columns: Object.keys(direct[0] ?? {}) };
  if (!isRecord(data)) return undefined;
  for (const key of ["rows", "results", "records", "items"]) {
    const rows = records(data[key]);
    if (!rows) continue;
    const totalField = [data.totalRows, data.total_rows, data.rowCount, data.total].find(
      (v) => typeof v === "number",
    );
    const columns = Array.isArray(data.columns)
      ? data.columns
          .map((c) => (typeof c === "string" ? c : isRecord(c) && typeof c.name === "string" ? c.name : ""))
          .filter(Boolean)
      : Object.keys(rows[0] ?? {});
    return { rows, total: typeof totalField === "number" ? totalField : rows.length, columns };
  }
  for (const key of ["result", "data", "page"]) {
    if (isRecord(data[key])) {
      const nested = rowSetOf(data[key]);
      if (nested) return nested;
    }
  }
  return undefined;
}

/** Plain-text tables: first column left-aligned, the rest right-aligned. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly (string | number)[]>): string {
  const cells = [headers, ...rows].map((row) => row.map((c) => (typeof c === "number" ? fmt(c) : c)));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  const line = (row: readonly string[]) =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return [line(cells[0] ?? []), rule, ...cells.slice(1).map(line)].join("\n");
}

/** Integers as is with thousands separators; fractions with up to 2 decimals; NaN as "–". */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return "–";
  if (Number.isInteger(n)) return n.toLocaleString("en-US");
  return n.toLocaleString("en-US", { maximumFractionDigits: Math.abs(n) < 10 ? 2 : 1 });
}

/** Milliseconds: whole above 10, one decimal below, two below 1. */
export function ms(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return "–";
  const digits = n >= 10 ? 0 : n >= 1 ? 1 : 2;
  return `${n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })} ms`;
}

export function kib(bytes: number | undefined): string {
  return bytes === undefined ? "–" : `${fmt(Math.round(bytes / 1024))} KiB`;
}

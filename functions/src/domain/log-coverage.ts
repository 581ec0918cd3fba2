import { z } from "zod";

/**
 * The time span each log table covers, read before planning (the `log_tables` tool with
 * `coverage: true`). A finding whose window lies outside every table's span cannot be
 * confirmed or refuted from the logs; ferret says so once and does not widen its searches.
 */
export const TableCoverageSchema = z.object({
  table: z.string().min(1).max(200),
  /** Earliest and latest row timestamps; absent when the table is empty. */
  first: z.string().max(40).optional(),
  last: z.string().max(40).optional(),
  rows: z.number().int().min(0),
});
export type TableCoverage = z.infer<typeof TableCoverageSchema>;

export interface Window {
  start: string;
  end: string;
}

export type CoverageState = "covered" | "partial" | "before" | "after" | "empty" | "unknown";

/** How one table's span meets a window: inside it, overlapping it, ending before, starting after, or empty. */
export function coverageOf(
  coverage: readonly TableCoverage[] | undefined,
  table: string,
  window: Window,
): CoverageState {
  const entry = coverage?.find((c) => c.table === table);
  if (!entry) return "unknown";
  if (entry.rows === 0 || !entry.first || !entry.last) return "empty";
  const [first, last, start, end] = [entry.first, entry.last, window.start, window.end].map(Date.parse);
  if ([first, last, start, end].some((t) => t === undefined || Number.isNaN(t))) return "unknown";
  if ((last as number) < (start as number)) return "before";
  if ((first as number) > (end as number)) return "after";
  return (first as number) <= (start as number) && (last as number) >= (end as number)
    ? "covered"
    : "partial";
}

/**
 * One plain sentence when no table with rows reaches the finding's time, else undefined.
 * Said once (in the plan's constraints and the conclusion), never per step.
 */
export function coverageGap(
  coverage: readonly TableCoverage[] | undefined,
  eventTime: string,
): string | undefined {
  if (!coverage || coverage.length === 0) return undefined;
  const filled = coverage.filter((c) => c.rows > 0 && c.first && c.last);
  const at = Date.parse(eventTime);
  if (filled.some((c) => Date.parse(c.first ?? "") <= at && Date.parse(c.last ?? "") >= at)) return undefined;
  if (filled.length === 0) return "Every log table is empty: the logs cannot confirm or refute this finding.";
  const first = filled.map((c) => c.first ?? "").sort()[0];
  const last = filled
    .map((c) => c.last ?? "")
    .sort()
    .at(-1);
  const where = Date.parse(last ?? "") < at ? `end at ${last}, before` : `begin at ${first}, after`;
  return `The logs cover ${first} to ${last}: they ${where} the finding's time (${eventTime}), so no query can confirm or refute it; the detector's own evidence stands on its own.`;
}

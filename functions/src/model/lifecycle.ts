/**
 * Announced shutdown dates of Gemini model ids ferret has used or that users are likely to
 * configure, from Google's pages (docs/decisions/0013 cites them). The earliest date of the
 * two backends counts: a deployment may move between them. A retired id answers 404, so a
 * warning at start-up beats finding out at the first planner call.
 */
const SHUTDOWNS: Record<string, { date: string; replacement: string }> = {
  "gemini-2.0-flash": { date: "2026-06-01", replacement: "gemini-3.5-flash" },
  "gemini-2.0-flash-001": { date: "2026-06-01", replacement: "gemini-3.5-flash" },
  "gemini-2.0-flash-lite": { date: "2026-06-01", replacement: "gemini-3.1-flash-lite" },
  "gemini-2.0-flash-lite-001": { date: "2026-06-01", replacement: "gemini-3.1-flash-lite" },
  "gemini-2.5-pro": { date: "2026-10-16", replacement: "gemini-3.5-flash" },
  "gemini-2.5-flash": { date: "2026-10-16", replacement: "gemini-3.5-flash" },
  "gemini-2.5-flash-lite": { date: "2026-10-16", replacement: "gemini-3.1-flash-lite" },
  "gemini-3-pro-preview": { date: "2026-03-09", replacement: "gemini-3.5-flash" },
  "gemini-3.1-flash-lite": { date: "2027-05-07", replacement: "a current Flash-Lite model" },
};

/** Warn this long before a shutdown. */
const NOTICE_DAYS = 60;
const DAY_MS = 86_400_000;

/** A sentence for the log and `doctor` when `model` is retired or retires soon; else undefined. */
export function lifecycleWarning(model: string, today: Date): string | undefined {
  const entry = SHUTDOWNS[model.replace(/^.*\//, "")];
  if (!entry) return undefined;
  const shutdown = Date.parse(`${entry.date}T00:00:00Z`);
  const days = Math.ceil((shutdown - today.getTime()) / DAY_MS);
  if (days <= 0) {
    return `${model} was shut down on ${entry.date} and answers 404; configure ${entry.replacement} instead (investigations fall back to the offline model until then)`;
  }
  if (days <= NOTICE_DAYS) {
    return `${model} shuts down on ${entry.date} (in ${days} days); plan the move to ${entry.replacement}`;
  }
  return undefined;
}

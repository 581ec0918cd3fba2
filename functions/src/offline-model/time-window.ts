/** A query window, as ISO timestamps without milliseconds. */
export interface TimeWindow {
  start: string;
  end: string;
}

const HOUR_MS = 3_600_000;

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Windows are anchored on the finding's eventTime, never on the wall clock, so the same
 * finding gives the same queries today and in a replay next year.
 */
export function windowAround(eventTime: string, hoursBefore: number, hoursAfter: number): TimeWindow {
  const anchor = Date.parse(eventTime);
  if (Number.isNaN(anchor)) throw new RangeError(`eventTime "${eventTime}" is not a timestamp`);
  return { start: iso(anchor - hoursBefore * HOUR_MS), end: iso(anchor + hoursAfter * HOUR_MS) };
}

/** The alternative when a window came back empty: four times as far back, twice as far forward. */
export function widen(window: TimeWindow, eventTime: string): TimeWindow {
  const anchor = Date.parse(eventTime);
  const start = Date.parse(window.start);
  const end = Date.parse(window.end);
  if ([anchor, start, end].some(Number.isNaN)) return window;
  const before = Math.max(anchor - start, HOUR_MS);
  const after = Math.max(end - anchor, HOUR_MS);
  return { start: iso(anchor - before * 4), end: iso(anchor + after * 2) };
}

export function isTimestamp(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) && !Number.isNaN(Date.parse(value));
}

import type { TimeWindow } from "./contract.js";

/** Hours before/after the finding's eventTime a session reads when the request names no window. */
export interface WindowHours {
  before: number;
  after: number;
}

export const DEFAULT_WINDOW_HOURS: WindowHours = { before: 6, after: 1 };

const HOUR_MS = 3_600_000;

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The session window: the caller's, else one anchored on the finding's eventTime, never on
 * the wall clock, so a replayed finding reads the same logs as the live one did.
 */
export function sessionWindow(
  eventTime: string,
  given: TimeWindow | undefined,
  hours: WindowHours,
): { window: TimeWindow; source: "request" | "default" } {
  if (given)
    return {
      window: { start: iso(Date.parse(given.start)), end: iso(Date.parse(given.end)) },
      source: "request",
    };
  const anchor = Date.parse(eventTime);
  return {
    window: { start: iso(anchor - hours.before * HOUR_MS), end: iso(anchor + hours.after * HOUR_MS) },
    source: "default",
  };
}

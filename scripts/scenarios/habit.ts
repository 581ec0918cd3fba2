import { DAY, MINUTE } from "./kit.js";
import type { Rng } from "./prng.js";

/**
 * A principal's past: the same kind of call on earlier days, so a look-back (principal_history)
 * has something to compare the finding's call with. `days` are whole days before `anchor`;
 * each day's time is jittered by up to an hour so the habit does not look machine-exact.
 */
export function onEarlierDays(
  rng: Rng,
  anchor: number,
  days: readonly number[],
  add: (time: number, index: number) => void,
): void {
  for (const [index, d] of days.entries()) add(anchor - d * DAY + rng.int(-60, 60) * MINUTE, index);
}

/** Days 1..n before the anchor, skipping the weekend-like days a team does not work. */
export function workdays(n: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= n; d++) if (d % 7 !== 2 && d % 7 !== 3) out.push(d);
  return out;
}

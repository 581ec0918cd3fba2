import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ProxiedCall } from "./proxy.js";

/** "<fn> done" lines the HTTP functions log after each operation (entry/workflow-call.ts). */
export interface OperationLog {
  fn: string;
  investigationId: string;
  /** Epoch ms when the line was written, i.e. when the operation returned. */
  atMs: number;
  durationMs: number;
}

export function readOperationLogs(logDir: string, fn: string): OperationLog[] {
  const file = join(logDir, `${fn}.log`);
  if (!existsSync(file)) return [];
  const out: OperationLog[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    let entry: { message?: unknown; investigationId?: unknown; time?: unknown; durationMs?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.message !== `${fn} done`) continue;
    if (typeof entry.investigationId !== "string" || typeof entry.time !== "string") continue;
    if (typeof entry.durationMs !== "number") continue;
    out.push({
      fn,
      investigationId: entry.investigationId,
      atMs: Date.parse(entry.time),
      durationMs: entry.durationMs,
    });
  }
  return out;
}

/**
 * Pairs each proxied call with the operation log its function wrote for it: same function
 * and investigation, written inside the call's window, closest to the call's end. Parallel
 * step calls of one investigation may swap partners; their durations are alike, and the
 * distributions are what is reported.
 */
export function pairWithLogs(
  calls: readonly ProxiedCall[],
  logs: readonly OperationLog[],
): Array<{ call: ProxiedCall; log: OperationLog }> {
  const free = new Set(logs);
  const pairs: Array<{ call: ProxiedCall; log: OperationLog }> = [];
  for (const call of [...calls].sort((a, b) => a.endMs - b.endMs)) {
    let best: OperationLog | undefined;
    for (const log of free) {
      if (log.fn !== call.fn || log.investigationId !== call.investigationId) continue;
      if (log.atMs < call.startMs - 2 || log.atMs > call.endMs + 2) continue;
      if (!best || Math.abs(call.endMs - log.atMs) < Math.abs(call.endMs - best.atMs)) best = log;
    }
    if (best) {
      free.delete(best);
      pairs.push({ call, log: best });
    }
  }
  return pairs;
}

/** Total time covered by a set of intervals (overlaps counted once). */
export function coveredMs(intervals: ReadonlyArray<{ startMs: number; endMs: number }>): number {
  const sorted = [...intervals].sort((a, b) => a.startMs - b.startMs);
  let total = 0;
  let start = Number.NEGATIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const i of sorted) {
    if (i.startMs > end) {
      if (end > start) total += end - start;
      start = i.startMs;
      end = i.endMs;
    } else if (i.endMs > end) end = i.endMs;
  }
  if (end > start) total += end - start;
  return total;
}

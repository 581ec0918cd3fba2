/** Order statistics over samples (nearest-rank percentiles), rounded for reports. */
export interface Summary {
  n: number;
  median: number;
  p95: number;
  min: number;
  max: number;
  mean: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 100) / 100;
  const mean = sorted.reduce((s, v) => s + v, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    median: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    min: round(sorted[0] ?? Number.NaN),
    max: round(sorted.at(-1) ?? Number.NaN),
    mean: round(mean),
  };
}

export function ratio(a: number, b: number): number {
  return b === 0 ? Number.NaN : Math.round((a / b) * 100) / 100;
}

/** Samples grouped by a key, each group summarized. */
export function summarizeBy<T>(
  items: readonly T[],
  key: (item: T) => string,
  value: (item: T) => number,
): Record<string, Summary> {
  const groups = new Map<string, number[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k) ?? [];
    list.push(value(item));
    groups.set(k, list);
  }
  return Object.fromEntries([...groups].map(([k, v]) => [k, summarize(v)]));
}

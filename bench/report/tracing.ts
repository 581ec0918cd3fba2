import { ms, table } from "../lib/table.js";
import type { TracingSection } from "../tracing/overhead.js";

export function printTracing(t: TracingSection): string {
  const rows = (["off", "on"] as const).map((name) => {
    const arm = t[name];
    return [
      `telemetry ${name}`,
      arm.wallMs.n,
      ms(arm.wallMs.median),
      ms(arm.wallMs.p95),
      ms(arm.wallMs.mean),
      ms(arm.cpuMs.median),
      arm.modelCalls,
      arm.spans,
      arm.metricPoints,
    ];
  });
  return [
    `5. THE COST OF SEEING — the same scenarios in-process, telemetry off and on, ${t.rounds} rounds`,
    table(
      ["arm", "drives", "median", "p95", "mean", "CPU median", "model calls", "spans", "metric points"],
      rows,
    ),
    `wall-time overhead: ${t.overheadRatio}× (sum on / sum off); paired: median ${t.pairedMedianRatio}×, geometric mean ${t.pairedGeoMean.ratio}× (95% ${t.pairedGeoMean.low}–${t.pairedGeoMean.high})`,
    `CPU-time overhead: ${t.cpuOverheadRatio}× (sum on / sum off); model calls on − off: ${t.modelCallDifference}`,
  ].join("\n");
}

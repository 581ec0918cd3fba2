import { errorMessage } from "../domain/errors.js";
import type { InvestigationTraceIds } from "../platform/tracing.js";
import type { ConsoleDeps } from "./ports.js";
import { durationText, traceLayout } from "./trace-layout.js";

/** Percentages as attribute text: three decimals place a bar to a thousandth of the axis. */
const pct = (value: number) => `${Number(value.toFixed(3))}%`;

/**
 * An investigation's trace shaped for the template: the waterfall's rows with their bars as SVG
 * attribute values (the CSP forbids inline style, so a bar is placed by its rect's x and width),
 * or why there is none. A store that cannot be read is said on the page, not a failed page. A
 * span's step links to the step's card only when the plan has that step: span text never goes
 * into an attribute unless it names an anchor the page itself has.
 */
export async function traceView(
  deps: Pick<ConsoleDeps, "traces" | "logger">,
  ids: InvestigationTraceIds,
  planStepIds: ReadonlySet<string>,
): Promise<Record<string, unknown>> {
  const none = { traceId: ids.traceId, source: deps.traces.source, layout: null, error: "" };
  let spans: Awaited<ReturnType<ConsoleDeps["traces"]["spans"]>>;
  try {
    spans = await deps.traces.spans(ids.traceId);
  } catch (error) {
    deps.logger.warn("console: spans not read", { traceId: ids.traceId, error: errorMessage(error) });
    return { ...none, error: errorMessage(error) };
  }
  const layout = traceLayout(spans, ids.rootSpanId);
  if (!layout) return none;
  return {
    ...none,
    layout: {
      spans: layout.spans,
      hidden: layout.hidden,
      wall: durationText(layout.wallMs),
      wait: durationText(layout.waitMs),
      ticks: layout.ticks.map((t) => ({
        x: pct(t.leftPct),
        label: t.label,
        // The first label starts at the axis's left edge and the last ends at its right.
        anchor: t.leftPct < 4 ? "start" : t.leftPct > 96 ? "end" : "middle",
      })),
      rows: layout.rows.map((r) => ({
        kind: r.kind,
        name: r.name,
        stepId: r.stepId,
        stepLink: planStepIds.has(r.stepId),
        depth: r.depth,
        ok: r.ok,
        x: pct(r.leftPct),
        width: pct(r.widthPct),
        at: durationText(r.offsetMs),
        duration: durationText(r.durationMs),
        tooltip: [
          `${r.name}: ${durationText(r.durationMs)} from +${durationText(r.offsetMs)}`,
          ...r.attributes,
        ].join("\n"),
      })),
    },
  };
}

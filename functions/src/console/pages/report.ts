import { z } from "zod";
import { decisionReport } from "../../app/decision-report.js";
import { planningMetrics, shownTarget, shownValue } from "../../app/planning-metrics.js";
import { InvalidInputError } from "../../domain/errors.js";
import type { Investigation } from "../../domain/investigation.js";
import type { ConsoleDeps } from "../ports.js";

const REPORT_LIMIT = 1_000;
const DaysSchema = z.coerce.number().int().min(1).max(365).default(30);

/**
 * The agreement report and the planning design's metrics, as `ferret report` computes them, over
 * the investigations finished (concluded, held for a person, or failed) in the last n days. Failed
 * ones count: without them completion could never fall below 100 %.
 */
export async function reportPage(
  deps: Pick<ConsoleDeps, "store" | "now">,
  rawQuery: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const days = DaysSchema.safeParse(
    typeof rawQuery.days === "string" && rawQuery.days !== "" ? rawQuery.days : undefined,
  );
  if (!days.success) throw new InvalidInputError("days is a whole number from 1 to 365");
  const since = new Date(deps.now().getTime() - days.data * 86_400_000).toISOString();
  const found: Investigation[] = [];
  for (const status of ["concluded", "needs_human", "failed"] as const) {
    found.push(...(await deps.store.listChangedSince({ status, updatedAfter: since, limit: REPORT_LIMIT })));
  }
  const report = decisionReport(found);
  const planning = planningMetrics(found).map((m) => ({
    label: m.label,
    counts: m.counts,
    value: shownValue(m),
    over: m.over,
    target: shownTarget(m),
    met: m.met === null ? "" : m.met ? "meets" : "misses",
  }));
  const pct = (rate: number | null) => (rate === null ? "—" : `${Math.round(rate * 100)}%`);
  const rows = (list: typeof report.agreement.byCategory) => list.map((r) => ({ ...r, pct: pct(r.rate) }));
  return {
    title: "Report",
    nav: "report",
    days: days.data,
    planning,
    report: {
      ...report,
      overallPct: pct(report.agreement.overall.rate),
      byCategory: rows(report.agreement.byCategory),
      byModel: rows(report.agreement.byModel),
    },
  };
}

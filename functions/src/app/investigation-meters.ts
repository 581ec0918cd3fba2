import { type Investigation, TERMINAL_STATUSES } from "../domain/investigation.js";
import { type HistogramSpec, recordHistogram } from "../platform/meters.js";
import type { Committed } from "../ports/investigation-store.js";
import { type PlanningMetricName, planningSamples } from "./planning-metrics.js";

/**
 * A finished investigation as metrics (issue 39; deployed, Cloud Monitoring through the
 * OpenTelemetry metrics SDK): each planning-design sample (app/planning-metrics.ts) on a
 * histogram of its own, whose mean is the metric, and the investigation's total time by how it
 * ended. Recorded once, by whoever commits the ending (app/roles-common.ts, app/sweep.ts).
 */
const PLANNING_UNITS: Record<
  PlanningMetricName,
  Pick<HistogramSpec, "description" | "unit" | "boundaries">
> = {
  completion: {
    description: "1 when a finished investigation reached a verdict",
    unit: "1",
    boundaries: [0.5],
  },
  firstPlanCompletes: {
    description: "1 when an investigation reached a verdict on its first plan",
    unit: "1",
    boundaries: [0.5],
  },
  revisionRate: {
    description: "1 when reflection changed the plan at least once",
    unit: "1",
    boundaries: [0.5],
  },
  meanRevisions: {
    description: "times reflection changed the plan",
    unit: "{revision}",
    boundaries: [0, 1, 2, 3, 5],
  },
  firstTrySuccess: { description: "1 when a step that ended succeeded", unit: "1", boundaries: [0.5] },
  errorRecovery: {
    description: "1 when an investigation with a failed step still reached a verdict",
    unit: "1",
    boundaries: [0.5],
  },
};

/** The Cloud Monitoring metric name of a planning metric (workload.googleapis.com/<this>). */
export function planningMeterName(metric: PlanningMetricName): string {
  return `ferret.planning.${metric.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
}

export const INVESTIGATION_DURATION = "ferret.investigation.duration";

function recordFinishedInvestigation(inv: Investigation): void {
  for (const sample of planningSamples(inv))
    recordHistogram(
      { name: planningMeterName(sample.metric), ...PLANNING_UNITS[sample.metric] },
      sample.value,
    );
  const seconds = (Date.parse(inv.updatedAt) - Date.parse(inv.createdAt)) / 1000;
  if (Number.isFinite(seconds) && seconds >= 0)
    recordHistogram(
      {
        name: INVESTIGATION_DURATION,
        description: "time from admission to the investigation's end",
        unit: "s",
        boundaries: [30, 60, 120, 240, 480, 900, 1800, 3600],
      },
      seconds,
      { "ferret.status": inv.status },
    );
}

/**
 * Records the investigation when this commit is the one that ended it: its status is terminal
 * and the commit appended the ending's event. A replay (the status already terminal, nothing
 * appended) records nothing, so a retried call does not count twice.
 */
export function recordIfEnded(committed: Committed): void {
  const status = committed.investigation.status;
  if (TERMINAL_STATUSES.includes(status) && committed.events.some((e) => e.type === status))
    recordFinishedInvestigation(committed.investigation);
}

import type { Investigation } from "../domain/investigation.js";

/**
 * The planning design's quality metrics (the seeds' planning spec, its chapter on metrics),
 * measured on finished investigations as Firestore keeps them, each beside the design's target.
 * What each one counts, in ferret's terms:
 * - completion: the investigation reached a verdict (concluded, or a draft held for a person);
 * - first plan completes: it reached a verdict without any reflection changing the plan;
 * - revision rate and mean revisions: plans changed by reflection at least once, and how often;
 * - first-try success: of the steps that ran to an end, the share that succeeded (ferret does
 *   not re-run a failed step; reflection plans another one);
 * - error recovery: of the investigations with a failed step, the share that still reached a verdict.
 */
export interface PlanningMetric {
  name: string;
  /** What the design calls it. */
  label: string;
  /** What it counts, in ferret's terms. */
  counts: string;
  /** The measured value (a rate 0–1, or a mean), or null when nothing was measured. */
  value: number | null;
  /** How many investigations (or steps) it was measured over. */
  over: number;
  target: { comparison: ">=" | "<" | ">"; value: number };
  /** Whether the measured value meets the target; null when nothing was measured. */
  met: boolean | null;
}

/** The design's targets (terraform/monitoring.tf draws the same as its dashboard's thresholds). */
export const PLANNING_TARGETS = {
  completion: { comparison: ">", value: 0.9 },
  firstPlanCompletes: { comparison: ">=", value: 0.8 },
  revisionRate: { comparison: "<", value: 0.3 },
  meanRevisions: { comparison: "<", value: 1.5 },
  firstTrySuccess: { comparison: ">", value: 0.7 },
  errorRecovery: { comparison: ">", value: 0.8 },
} as const satisfies Record<string, PlanningMetric["target"]>;

export type PlanningMetricName = keyof typeof PLANNING_TARGETS;

const MEANINGS = {
  completion: [
    "Completion rate",
    "investigations that reached a verdict (concluded, or a draft held for a person)",
  ],
  firstPlanCompletes: [
    "First plan completes without revision",
    "planned investigations that reached a verdict with no reflection changing the plan",
  ],
  revisionRate: ["Revision rate", "planned investigations whose plan reflection changed at least once"],
  meanRevisions: ["Mean revisions", "plan revisions per planned investigation"],
  firstTrySuccess: [
    "First-try success",
    "steps that ran to an end and succeeded (a failed step is not re-run)",
  ],
  errorRecovery: ["Recovery from errors", "investigations with a failed step that still reached a verdict"],
} as const satisfies Record<PlanningMetricName, readonly [string, string]>;

/** The metrics that are means of counts rather than rates (their name says "(mean)"). */
const MEANS: ReadonlySet<PlanningMetricName> = new Set(["meanRevisions"]);

/**
 * One observation a finished investigation contributes to a metric: 1 or 0 for a rate, a count
 * for a mean. Every metric is the mean of its samples, so the figures `ferret report` prints
 * and the distributions Cloud Monitoring averages (platform/planning-meters.ts) are one
 * definition.
 */
export interface PlanningSample {
  metric: PlanningMetricName;
  value: number;
}

const reachedVerdict = (inv: Investigation) => inv.conclusion !== undefined;
const bit = (yes: boolean) => (yes ? 1 : 0);

/** What one finished investigation contributes to each metric (nothing where it does not count). */
export function planningSamples(inv: Investigation): PlanningSample[] {
  const samples: PlanningSample[] = [{ metric: "completion", value: bit(reachedVerdict(inv)) }];
  if (!inv.plan) return samples;
  const revisions = inv.plan.revision;
  const ended = inv.plan.steps.filter((s) => s.status === "done" || s.status === "failed");
  samples.push(
    { metric: "firstPlanCompletes", value: bit(reachedVerdict(inv) && revisions === 0) },
    { metric: "revisionRate", value: bit(revisions > 0) },
    { metric: "meanRevisions", value: revisions },
    ...ended.map((s) => ({ metric: "firstTrySuccess" as const, value: bit(s.status === "done") })),
  );
  if (ended.some((s) => s.status === "failed"))
    samples.push({ metric: "errorRecovery", value: bit(reachedVerdict(inv)) });
  return samples;
}

function metric(name: PlanningMetricName, samples: readonly PlanningSample[]): PlanningMetric {
  const target = PLANNING_TARGETS[name];
  const mine = samples.filter((s) => s.metric === name);
  const over = mine.length;
  const value = over === 0 ? null : mine.reduce((t, s) => t + s.value, 0) / over;
  const met =
    value === null
      ? null
      : target.comparison === ">="
        ? value >= target.value
        : target.comparison === ">"
          ? value > target.value
          : value < target.value;
  const [label, counts] = MEANINGS[name];
  return { name: MEANS.has(name) ? `${name} (mean)` : name, label, counts, value, over, target, met };
}

/** The metrics over samples gathered elsewhere (`ferret eval` keeps each scenario's). */
export function planningMetricsOf(samples: readonly PlanningSample[]): PlanningMetric[] {
  return (Object.keys(PLANNING_TARGETS) as PlanningMetricName[]).map((name) => metric(name, samples));
}

export function planningMetrics(investigations: readonly Investigation[]): PlanningMetric[] {
  return planningMetricsOf(investigations.flatMap(planningSamples));
}

const isMean = (m: PlanningMetric) => m.name.endsWith("(mean)");

/** The measured value as shown: a whole percentage, a mean to two places, or "—" when nothing was measured. */
export function shownValue(m: PlanningMetric): string {
  if (m.value === null) return "—";
  return isMean(m) ? m.value.toFixed(2) : `${Math.round(m.value * 100)}%`;
}

/** The design's target as shown, e.g. "> 90%" or "< 1.5". */
export function shownTarget(m: PlanningMetric): string {
  return `${m.target.comparison} ${isMean(m) ? String(m.target.value) : `${Math.round(m.target.value * 100)}%`}`;
}

/** One line per metric: value, what it was measured over, the design's target and whether it holds. */
export function planningMetricLines(metrics: readonly PlanningMetric[]): string[] {
  return metrics.map((m) => {
    const verdict = m.met === null ? "" : m.met ? "  meets" : "  misses";
    return `  ${m.name.padEnd(26)} ${shownValue(m).padStart(5)}  over ${m.over}  (target ${shownTarget(m)})${verdict}`;
  });
}

import type { Intent, IntentParams } from "../intents.js";
import type { Subject } from "../subject.js";
import type { TimeWindow } from "../time-window.js";

/** One playbook step before tool filtering and the step cap. */
export interface StepSpec {
  id: string;
  intent: Intent;
  expected: string;
  /** Only where the step reads another step's output. */
  dependsOn?: string[];
}

export interface Playbook {
  objective: string;
  successCriteria: string[];
  constraints: string[];
  /** In priority order: the cap keeps the first ones. */
  steps: StepSpec[];
}

export type PlaybookFor = (subject: Subject) => Playbook;

export function windowParams(window: TimeWindow): IntentParams {
  return { start: [window.start], end: [window.end] };
}

/** Adds the key only when there is a value, so absent facts never become empty parameters. */
export function paramIfPresent(
  key: keyof IntentParams,
  value: string | readonly string[] | undefined,
): IntentParams {
  if (value === undefined) return {};
  const values = typeof value === "string" ? [value] : [...value];
  return values.length > 0 ? { [key]: values } : {};
}

export function commonConstraints(subject: Subject): string[] {
  return [
    `Time window anchored on the finding's eventTime ${subject.eventTime}: ${subject.window.start} to ${subject.window.end}.`,
    "Read-only: query logs and intelligence, change nothing in the environment.",
  ];
}

export function intelStep(
  id: string,
  subject: Subject,
  expected: string,
  indicators?: Partial<Pick<IntentParams, "ips" | "domains" | "hashes">>,
): StepSpec | undefined {
  const ips = indicators?.ips ?? subject.publicIps;
  const domains = indicators?.domains ?? subject.domains;
  const hashes = indicators?.hashes ?? subject.hashes;
  if (ips.length + domains.length + hashes.length === 0) return undefined;
  return {
    id,
    intent: {
      kind: "intel",
      params: {
        ...paramIfPresent("ips", ips),
        ...paramIfPresent("domains", domains),
        ...paramIfPresent("hashes", hashes),
      },
    },
    expected,
  };
}

/** Keeps the steps whose condition held (`cond && step` yields a falsy value otherwise). */
export function applicableSteps<T>(values: readonly (T | undefined | null | false | "" | 0)[]): T[] {
  return values.filter((v): v is T => Boolean(v));
}

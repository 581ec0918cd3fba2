import type { Finding } from "../../functions/src/domain/finding/finding.js";
import {
  type Investigation,
  InvestigationSchema,
  investigationIdFor,
} from "../../functions/src/domain/investigation.js";
import { type Reflection, ReflectionSchema } from "../../functions/src/domain/reflection.js";
import { type StepResult, StepResultSchema, ZERO_USAGE } from "../../functions/src/domain/results.js";

let counter = 0;

export interface InvestigationSpec {
  findingName?: string;
  eventTime?: string;
  resourceName?: string;
  principal?: string;
  iocValues?: string[];
  createdAt?: string;
  sourceProperties?: Finding["sourceProperties"];
}

/** A valid Investigation (checked against InvestigationSchema) with a unique finding name by default. */
export function buildInvestigation(spec: InvestigationSpec = {}): Investigation {
  counter += 1;
  const findingName =
    spec.findingName ??
    `organizations/1/sources/2/findings/f${process.pid}x${counter}x${Math.random().toString(36).slice(2)}`;
  const eventTime = spec.eventTime ?? "2026-03-01T10:00:00.000Z";
  const createdAt = spec.createdAt ?? "2026-03-01T10:01:00.000Z";
  const finding: Finding = {
    name: findingName,
    category: "Persistence: IAM Anomalous Grant",
    severity: "HIGH",
    findingClass: "THREAT",
    state: "ACTIVE",
    mute: "UNMUTED",
    eventTime,
    resource: {
      name: spec.resourceName ?? "//cloudresourcemanager.googleapis.com/projects/123",
      project: "projects/123",
    },
    indicators: { ipAddresses: ["203.0.113.7"], domains: [], uris: [], hashes: [], signatures: [] },
    access:
      spec.principal === undefined ? undefined : { principalEmail: spec.principal, callerIp: "203.0.113.7" },
    processes: [],
    connections: [],
    iamBindings: [{ action: "ADD", role: "roles/owner", member: "user:mallory@example.com" }],
    files: [],
    mitre: { primaryTactic: "PERSISTENCE", techniques: ["T1098"], tactics: [] },
    sourceProperties: spec.sourceProperties ?? { detectionCategory: { ruleName: "iam_anomalous_grant" } },
    truncated: [],
  };
  return InvestigationSchema.parse({
    id: investigationIdFor(findingName, eventTime),
    status: "queued",
    finding,
    iocValues: spec.iocValues ?? ["203.0.113.7"],
    counters: { revisions: 0, consecutiveFailures: 0, stepsExecuted: 0, waves: 0, usage: ZERO_USAGE },
    model: "offline",
    fellBackToOffline: false,
    eventSeq: 0,
    createdAt,
    updatedAt: createdAt,
    deadlineAt: "2026-03-01T11:01:00.000Z",
  });
}

/** The usual change: one more step executed. */
export function stepCounted(current: Investigation): Investigation {
  return {
    ...current,
    counters: { ...current.counters, stepsExecuted: current.counters.stepsExecuted + 1 },
    updatedAt: new Date().toISOString(),
  };
}

export function buildStepResult(stepId: string, overrides: Partial<StepResult> = {}): StepResult {
  return StepResultSchema.parse({
    stepId,
    status: "done",
    outcome: "answered",
    summary: `step ${stepId} found the grant`,
    facts: ["mallory@example.com was granted roles/owner"],
    iocs: [{ type: "ip", value: "203.0.113.7" }],
    toolCalls: [],
    iterations: 1,
    usage: ZERO_USAGE,
    model: "offline",
    startedAt: "2026-03-01T10:02:00.000Z",
    finishedAt: "2026-03-01T10:03:00.000Z",
    ...overrides,
  });
}

export function buildReflection(wave: number, overrides: Partial<Reflection> = {}): Reflection {
  return ReflectionSchema.parse({
    achieved: false,
    insights: [`wave ${wave} narrowed it down`],
    updates: [],
    rationale: "more evidence needed",
    wave,
    afterSteps: [`step${wave}`],
    applied: [],
    refused: [],
    skipped: false,
    usage: ZERO_USAGE,
    model: "offline",
    createdAt: "2026-03-01T10:04:00.000Z",
    ...overrides,
  });
}

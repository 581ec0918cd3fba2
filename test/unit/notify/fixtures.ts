import { type Conclusion, ConclusionSchema } from "../../../functions/src/domain/conclusion.js";
import type { Finding } from "../../../functions/src/domain/finding/finding.js";
import {
  type Investigation,
  type InvestigationEvent,
  InvestigationSchema,
} from "../../../functions/src/domain/investigation.js";
import type { Plan } from "../../../functions/src/domain/plan.js";
import { type Reflection, ReflectionSchema } from "../../../functions/src/domain/reflection.js";
import { type StepResult, StepResultSchema } from "../../../functions/src/domain/results.js";

export const FINDING_NAME = "organizations/123456789/sources/987654321/findings/abcdef0123456789";

export function finding(overrides: Partial<Finding> = {}): Finding {
  return {
    name: FINDING_NAME,
    category: "Persistence: IAM Anomalous Grant",
    severity: "HIGH",
    findingClass: "THREAT",
    state: "ACTIVE",
    mute: "UNMUTED",
    eventTime: "2024-05-01T10:00:00Z",
    description: "A service account was granted roles/owner by an external principal.",
    resource: {
      name: "//cloudresourcemanager.googleapis.com/projects/prod-payments",
      project: "//cloudresourcemanager.googleapis.com/projects/prod-payments",
      projectDisplayName: "prod-payments",
      displayName: "prod-payments",
    },
    indicators: { ipAddresses: ["203.0.113.7"], domains: [], uris: [], hashes: [], signatures: [] },
    processes: [],
    connections: [],
    iamBindings: [{ action: "ADD", role: "roles/owner", member: "user:attacker@evil.example.com" }],
    files: [],
    mitre: { primaryTactic: "PERSISTENCE", techniques: ["ACCOUNT_MANIPULATION"], tactics: [] },
    sourceProperties: {},
    truncated: [],
    ...overrides,
  };
}

export function plan(): Plan {
  return {
    objective: "Decide whether the owner grant on prod-payments was malicious",
    successCriteria: ["Know who granted the role and from where"],
    constraints: [],
    revision: 0,
    steps: [
      {
        id: "audit-grant",
        description: "Find the SetIamPolicy call that granted roles/owner",
        tools: ["log_analysis"],
        expected: "the caller, IP and user agent",
        dependsOn: [],
        status: "done",
        addedInRevision: 0,
      },
      {
        id: "intel-ip",
        description: "Look up the caller IP in threat intel",
        tools: ["threat_intel_lookup"],
        expected: "a reputation verdict",
        dependsOn: ["audit-grant"],
        status: "pending",
        addedInRevision: 0,
      },
    ],
  };
}

export function investigation(overrides: Partial<Investigation> = {}): Investigation {
  // The base is schema-valid; overrides may deliberately break limits (hostile-data tests).
  const base = InvestigationSchema.parse({
    id: "inv-0123456789abcdef01234567",
    status: "running",
    finding: finding(),
    iocValues: ["203.0.113.7"],
    plan: plan(),
    counters: {
      revisions: 0,
      consecutiveFailures: 0,
      stepsExecuted: 1,
      waves: 1,
      usage: { llmCalls: 3, inputTokens: 1200, outputTokens: 300 },
    },
    model: "gemini-2.5-pro",
    fellBackToOffline: false,
    eventSeq: 3,
    createdAt: "2024-05-01T10:01:00.000Z",
    updatedAt: "2024-05-01T10:02:00.000Z",
    deadlineAt: "2024-05-01T10:31:00.000Z",
  });
  return { ...base, ...overrides };
}

export function stepResult(overrides: Partial<StepResult> = {}): StepResult {
  const base = StepResultSchema.parse({
    stepId: "audit-grant",
    status: "done",
    outcome: "answered",
    summary: "alice@example.com granted roles/owner from 203.0.113.7 using gcloud.",
    facts: ["caller: alice@example.com", "callerIp: 203.0.113.7"],
    iocs: [{ type: "ip", value: "203.0.113.7", context: "caller IP of the grant" }],
    toolCalls: [
      { id: "c1", name: "log_analysis", args: {}, ok: true, summary: "3 rows", durationMs: 1200 },
      {
        id: "c2",
        name: "log_analysis",
        args: {},
        ok: false,
        summary: "",
        error: "table not found",
        durationMs: 80,
      },
    ],
    iterations: 2,
    usage: { llmCalls: 2, inputTokens: 800, outputTokens: 200 },
    model: "gemini-2.5-pro",
    startedAt: "2024-05-01T10:01:10.000Z",
    finishedAt: "2024-05-01T10:01:14.500Z",
  });
  return { ...base, ...overrides };
}

export function reflection(overrides: Partial<Reflection> = {}): Reflection {
  const add = {
    op: "add" as const,
    step: {
      id: "sa-keys",
      description: "List keys created for the service account",
      tools: ["log_analysis"],
      expected: "key ids",
      dependsOn: [],
    },
  };
  const base = ReflectionSchema.parse({
    achieved: false,
    insights: ["The grant came from an IP never seen for this user"],
    updates: [add, { op: "cancel", id: "intel-ip", reason: "covered by audit-grant" }],
    rationale: "Need to know whether persistence was established.",
    wave: 1,
    afterSteps: ["audit-grant"],
    applied: [add],
    refused: [
      {
        update: { op: "cancel", id: "intel-ip", reason: "covered by audit-grant" },
        reason: "step already ran",
      },
    ],
    skipped: false,
    usage: { llmCalls: 1, inputTokens: 400, outputTokens: 100 },
    model: "gemini-2.5-pro",
    createdAt: "2024-05-01T10:01:20.000Z",
  });
  return { ...base, ...overrides };
}

export function conclusion(overrides: Partial<Conclusion> = {}): Conclusion {
  const base = ConclusionSchema.parse({
    verdict: "true_positive",
    confidence: 0.853,
    severity: "CRITICAL",
    summary: "An external account granted itself owner on prod-payments and created a key.",
    mitre: [{ tactic: "Persistence", techniqueId: "T1098", techniqueName: "Account Manipulation" }],
    keyFindings: [
      {
        finding: "roles/owner granted by attacker@evil.example.com",
        evidence: [{ stepId: "audit-grant", source: "audit logs", detail: "SetIamPolicy from 203.0.113.7" }],
      },
    ],
    iocs: [
      { type: "ip", value: "203.0.113.7", context: "caller IP" },
      { type: "domain", value: "evil.example.com" },
      { type: "url", value: "https://evil.example.com/payload.sh" },
      { type: "email", value: "attacker@evil.example.com" },
      { type: "hash", value: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
    ],
    recommendedActions: [
      { action: "Revoke the owner binding", priority: "immediate" },
      { action: "Rotate the service account keys", priority: "soon" },
      { action: "Review org policy on external members", priority: "later" },
    ],
    openQuestions: ["Was the key used?"],
    producedBy: { model: "gemini-2.5-pro", offline: false },
    createdAt: "2024-05-01T10:05:00.000Z",
  });
  return { ...base, ...overrides };
}

export function event(overrides: Partial<InvestigationEvent> = {}): InvestigationEvent {
  return {
    investigationId: "inv-0123456789abcdef01234567",
    seq: 1,
    type: "created",
    at: "2024-05-01T10:01:00.000Z",
    message: "investigation created",
    ...overrides,
  };
}

/** Every text string anywhere inside a block tree (text objects, fields, elements). */
export function allTexts(value: unknown): string[] {
  if (typeof value === "string") return [];
  if (Array.isArray(value)) return value.flatMap(allTexts);
  if (value && typeof value === "object") {
    const out: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (k === "text" && typeof v === "string") out.push(v);
      else out.push(...allTexts(v));
    }
    return out;
  }
  return [];
}

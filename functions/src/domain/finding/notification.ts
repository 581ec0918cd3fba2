import { z } from "zod";
import { etdLogEntryFinding, isEtdLogEntry } from "./etd-log-entry.js";

/**
 * The SCC notification as Pub/Sub delivers it (the JSON inside message.data). v1
 * NotificationConfigs and v2 (locations/*) configs share the envelope; they differ in
 * the finding name (v2 has /locations/{loc}/) and in where the resource's project sits
 * (v1: resource.project, v2: resource.gcpMetadata.project). Unknown fields are kept
 * (looseObject) because SCC adds fields without notice and we must not reject them.
 *
 * Validation covers only what ferret relies on: a finding with a name, a category and an
 * eventTime. Every other field is typed leniently: one with an unexpected shape parses as
 * absent (`lenient`), and the normalizer keeps its raw value verbatim in `details` with a
 * note, so nothing is rejected or dropped for a shape ferret does not need.
 */
const Str = z.string();
const StrArr = z.array(z.string());

/** An optional field whose unexpected shape reads as absent instead of failing the whole parse. */
function lenient<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(undefined);
}

export const SccAccessSchema = z.looseObject({
  principalEmail: Str.optional(),
  principalSubject: Str.optional(),
  userName: Str.optional(),
  /** The delegation chain, first delegate first (documented as serviceAccountDelegationInfo). */
  serviceAccountDelegationInfo: z
    .array(z.looseObject({ principalEmail: Str.optional(), principalSubject: Str.optional() }))
    .optional(),
  callerIp: Str.optional(),
  callerIpGeo: z.looseObject({ regionCode: Str.optional() }).optional(),
  userAgent: Str.optional(),
  userAgentFamily: Str.optional(),
  serviceName: Str.optional(),
  methodName: Str.optional(),
  serviceAccountKeyName: Str.optional(),
});

export const SccProcessSchema = z.looseObject({
  name: Str.optional(),
  binary: z
    .looseObject({
      path: Str.optional(),
      sha256: Str.optional(),
      size: z.union([Str, z.number()]).optional(),
    })
    .optional(),
  args: StrArr.optional(),
  argumentsTruncated: z.boolean().optional(),
  pid: z.union([Str, z.number()]).optional(),
  parentPid: z.union([Str, z.number()]).optional(),
  script: z.looseObject({ path: Str.optional(), sha256: Str.optional() }).optional(),
});

export const SccConnectionSchema = z.looseObject({
  destinationIp: Str.optional(),
  destinationPort: z.number().int().optional(),
  sourceIp: Str.optional(),
  sourcePort: z.number().int().optional(),
  protocol: Str.optional(),
});

export const SccSignatureSchema = z.looseObject({
  memoryHashSignature: z
    .looseObject({
      binaryFamily: Str.optional(),
      detections: z
        .array(z.looseObject({ binary: Str.optional(), percentPagesMatched: z.number().optional() }))
        .optional(),
    })
    .optional(),
  yaraRuleSignature: z.looseObject({ yaraRule: Str.optional() }).optional(),
});

export const SccFindingSchema = z.looseObject({
  name: Str.min(1),
  canonicalName: lenient(Str),
  parent: lenient(Str),
  parentDisplayName: lenient(Str),
  resourceName: lenient(Str),
  state: lenient(Str),
  category: Str.min(1),
  externalUri: lenient(Str),
  /** A map per the API; Google's own sample of an inactive v2 finding sends `[]`. */
  sourceProperties: z.unknown().optional(),
  eventTime: Str.min(1),
  createTime: lenient(Str),
  severity: lenient(Str),
  mute: lenient(Str),
  findingClass: lenient(Str),
  description: lenient(Str),
  nextSteps: lenient(Str),
  indicator: lenient(
    z.looseObject({
      ipAddresses: StrArr.optional(),
      domains: StrArr.optional(),
      uris: StrArr.optional(),
      signatures: z.array(SccSignatureSchema).optional(),
    }),
  ),
  access: lenient(SccAccessSchema),
  processes: lenient(z.array(SccProcessSchema)),
  connections: lenient(z.array(SccConnectionSchema)),
  files: lenient(z.array(z.looseObject({ path: Str.optional(), sha256: Str.optional() }))),
  iamBindings: lenient(
    z.array(z.looseObject({ action: Str.optional(), role: Str.optional(), member: Str.optional() })),
  ),
  mitreAttack: lenient(
    z.looseObject({
      primaryTactic: Str.optional(),
      primaryTechniques: StrArr.optional(),
      additionalTactics: StrArr.optional(),
      additionalTechniques: StrArr.optional(),
    }),
  ),
});

/** v1 and v2 Resource; the SCC export rows (BigQuery, Security Operations) use snake_case. */
export const SccResourceSchema = z.looseObject({
  name: lenient(Str),
  displayName: lenient(Str),
  display_name: lenient(Str),
  type: lenient(Str),
  project: lenient(Str),
  project_name: lenient(Str),
  /** ListFindingsResult.Resource (v1) names the project's resource name projectName. */
  projectName: lenient(Str),
  projectDisplayName: lenient(Str),
  project_display_name: lenient(Str),
  location: lenient(Str),
  gcpMetadata: lenient(z.looseObject({ project: Str.optional(), projectDisplayName: Str.optional() })),
});

export const SccNotificationSchema = z.looseObject({
  notificationConfigName: lenient(Str),
  finding: SccFindingSchema,
  resource: lenient(SccResourceSchema),
});
export type SccNotification = z.infer<typeof SccNotificationSchema>;
export type SccFinding = z.infer<typeof SccFindingSchema>;

/**
 * The shapes a finding arrives in. "notification": the Pub/Sub NotificationMessage
 * ({notificationConfigName, finding, resource}). "export": a continuous-export row as the
 * BigQuery export and Google Security Operations receive it ({findings, resource,
 * sourceProperties} with sourceProperties beside the finding). "finding": a bare Finding, as
 * the API's findings.list or the console's JSON tab gives it. "log-entry": an Event Threat
 * Detection finding as Cloud Logging stores it (etd-log-entry.ts).
 */
export type EnvelopeKind = "notification" | "export" | "finding" | "log-entry";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Rewrites an export row, a bare finding or an ETD log entry into the notification shape; says which it was. */
export function unwrapEnvelope(payload: unknown): { payload: unknown; envelope: EnvelopeKind } {
  if (!isObject(payload)) return { payload, envelope: "notification" };
  // The entry's own fields (logName, insertId, timestamp…) travel beside the finding, as context.
  if (isEtdLogEntry(payload)) return { payload: etdLogEntryFinding(payload), envelope: "log-entry" };
  const inner = isObject(payload.finding)
    ? payload.finding
    : isObject(payload.findings)
      ? payload.findings
      : undefined;
  // Export rows put sourceProperties beside the finding, under "finding" or "findings".
  if (inner && (payload.findings !== undefined || payload.sourceProperties !== undefined)) {
    const { finding: _finding, findings: _findings, sourceProperties, ...rest } = payload;
    const finding =
      sourceProperties !== undefined && inner.sourceProperties === undefined
        ? { ...inner, sourceProperties }
        : inner;
    return { payload: { ...rest, finding }, envelope: "export" };
  }
  if ("finding" in payload) return { payload, envelope: "notification" };
  if (typeof payload.name === "string" && typeof payload.category === "string")
    return { payload: { finding: payload }, envelope: "finding" };
  return { payload, envelope: "notification" };
}

import { z } from "zod";

/**
 * The SCC notification as Pub/Sub delivers it (the JSON inside message.data). v1
 * NotificationConfigs and v2 (locations/*) configs share the envelope; they differ in
 * the finding name (v2 has /locations/{loc}/) and in where the resource's project sits
 * (v1: resource.project, v2: resource.gcpMetadata.project). Unknown fields are kept
 * (looseObject) because SCC adds fields without notice and we must not reject them.
 */
const Str = z.string();
const StrArr = z.array(z.string());

export const SccAccessSchema = z.looseObject({
  principalEmail: Str.optional(),
  principalSubject: Str.optional(),
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
  canonicalName: Str.optional(),
  parent: Str.optional(),
  resourceName: Str.optional(),
  state: Str.optional(),
  category: Str.min(1),
  externalUri: Str.optional(),
  sourceProperties: z.record(z.string(), z.unknown()).optional(),
  eventTime: Str.min(1),
  createTime: Str.optional(),
  severity: Str.optional(),
  mute: Str.optional(),
  findingClass: Str.optional(),
  description: Str.optional(),
  nextSteps: Str.optional(),
  indicator: z
    .looseObject({
      ipAddresses: StrArr.optional(),
      domains: StrArr.optional(),
      uris: StrArr.optional(),
      signatures: z.array(SccSignatureSchema).optional(),
    })
    .optional(),
  access: SccAccessSchema.optional(),
  processes: z.array(SccProcessSchema).optional(),
  connections: z.array(SccConnectionSchema).optional(),
  files: z.array(z.looseObject({ path: Str.optional(), sha256: Str.optional() })).optional(),
  iamBindings: z
    .array(z.looseObject({ action: Str.optional(), role: Str.optional(), member: Str.optional() }))
    .optional(),
  mitreAttack: z
    .looseObject({
      primaryTactic: Str.optional(),
      primaryTechniques: StrArr.optional(),
      additionalTactics: StrArr.optional(),
      additionalTechniques: StrArr.optional(),
    })
    .optional(),
});

export const SccResourceSchema = z.looseObject({
  name: Str.optional(),
  displayName: Str.optional(),
  type: Str.optional(),
  project: Str.optional(),
  projectDisplayName: Str.optional(),
  location: Str.optional(),
  gcpMetadata: z.looseObject({ project: Str.optional(), projectDisplayName: Str.optional() }).optional(),
});

export const SccNotificationSchema = z.looseObject({
  notificationConfigName: Str.optional(),
  finding: SccFindingSchema,
  resource: SccResourceSchema.optional(),
});
export type SccNotification = z.infer<typeof SccNotificationSchema>;
export type SccFinding = z.infer<typeof SccFindingSchema>;

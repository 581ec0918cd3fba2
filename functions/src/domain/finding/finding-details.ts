import type { JsonValue } from "../json.js";

/**
 * What the typed Finding does not already hold, kept verbatim: every documented v1/v2
 * Finding and Resource field ferret does not type (exfiltration, kubernetes, containers,
 * database, vulnerability, logEntries, dataAccessEvents, cloudArmor, toxicCombination…) and
 * the untyped parts of typed ones (process libraries and environment, binary sizes, a
 * signature's type), so a BigQuery exfiltration finding reaches the agent with its tables.
 *
 * Proto3 JSON default values ("", 0, false, [], {}, *_UNSPECIFIED enums, the 1970 epoch
 * timestamp) mean "not set"; SCC sends them for every field of some findings, so they are
 * left out rather than shown as facts.
 */

/** Which keys of a raw object the typed Finding consumes: `true` = all of it, or per key. */
export type Consumed = true | { [key: string]: Consumed };

/** Finding fields the typed Finding holds, with the parts of each it types. */
export const FINDING_CONSUMED: { [key: string]: Consumed } = {
  name: true,
  canonicalName: true,
  parent: true,
  parentDisplayName: true,
  resourceName: true,
  state: true,
  category: true,
  externalUri: true,
  sourceProperties: true,
  eventTime: true,
  createTime: true,
  severity: true,
  mute: true,
  findingClass: true,
  description: true,
  nextSteps: true,
  indicator: {
    ipAddresses: true,
    domains: true,
    uris: true,
    signatures: {
      memoryHashSignature: { binaryFamily: true, detections: { binary: true } },
      yaraRuleSignature: { yaraRule: true },
    },
  },
  access: {
    principalEmail: true,
    principalSubject: true,
    callerIp: true,
    callerIpGeo: { regionCode: true },
    userAgent: true,
    userAgentFamily: true,
    serviceName: true,
    methodName: true,
    serviceAccountKeyName: true,
    userName: true,
    // The chain keeps one identity per delegate (the email); a subject beside it stays verbatim.
    serviceAccountDelegationInfo: { principalEmail: true },
  },
  processes: {
    name: true,
    binary: { path: true, sha256: true },
    script: { sha256: true },
    args: true,
    pid: true,
    parentPid: true,
  },
  connections: {
    destinationIp: true,
    destinationPort: true,
    sourceIp: true,
    sourcePort: true,
    protocol: true,
  },
  iamBindings: { action: true, role: true, member: true },
  files: { path: true, sha256: true },
  // The marks' own names are the finding's name plus "/securityMarks"; the marks are the news.
  securityMarks: { name: true, canonicalName: true },
  mitreAttack: {
    primaryTactic: true,
    primaryTechniques: true,
    additionalTactics: true,
    additionalTechniques: true,
  },
};

export const RESOURCE_CONSUMED: { [key: string]: Consumed } = {
  name: true,
  displayName: true,
  display_name: true,
  type: true,
  project: true,
  project_name: true,
  projectName: true,
  projectDisplayName: true,
  project_display_name: true,
  gcpMetadata: { project: true, projectDisplayName: true },
};

const EPOCH = /^1970-01-01T00:00:00(\.0+)?Z$/;

/** Deeper than this, a value counts as information; json-cap.ts turns it into a marker. */
const MAX_DEPTH = 64;

/** A proto3 default: carries no information. */
export function isProtoDefault(value: unknown, depth = 0): boolean {
  if (value === undefined || value === null || value === "" || value === 0 || value === false) return true;
  // int64 fields are strings in proto3 JSON ("0"), Durations too ("0s").
  if (typeof value === "string")
    return value === "0" || value === "0s" || /_UNSPECIFIED$/.test(value) || EPOCH.test(value);
  if (typeof value !== "object" || depth >= MAX_DEPTH) return false;
  const items = Array.isArray(value) ? value : Object.values(value);
  return items.every((item) => isProtoDefault(item, depth + 1));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The part of `raw` that `consumed` does not cover, with proto3 defaults removed; undefined
 * when nothing is left. Arrays keep their positions so a residual lines up with its item.
 */
export function residual(raw: unknown, consumed: Consumed | undefined, depth = 0): unknown {
  if (consumed === true) return undefined;
  if (consumed === undefined || depth >= MAX_DEPTH) return isProtoDefault(raw) ? undefined : raw;
  if (Array.isArray(raw)) {
    const items = raw.map((item) => residual(item, consumed, depth + 1) ?? {});
    return items.some((item) => !isProtoDefault(item)) ? items : undefined;
  }
  if (!isRecord(raw)) return isProtoDefault(raw) ? undefined : raw;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const rest = residual(value, consumed[key], depth + 1);
    if (rest !== undefined) out[key] = rest;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Top-level keys of `raw` whose residual is not empty, each under `prefix`. */
export function residualFields(
  raw: Record<string, unknown> | undefined,
  consumed: { [key: string]: Consumed },
  prefix: string,
  /** Keys whose typed parse failed: kept whole, whatever the spec says. */
  unparsed: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw ?? {})) {
    const rest = unparsed.has(key)
      ? isProtoDefault(value)
        ? undefined
        : value
      : residual(value, consumed[key]);
    if (rest !== undefined) out[`${prefix}${key}`] = rest as JsonValue;
  }
  return out;
}

import { z } from "zod";
import { InvalidInputError } from "../errors.js";
import type { Ioc } from "../ioc.js";
import { assertJsonBounds, type JsonValue, JsonValueSchema } from "../json.js";
import { CutList, fitBudget, toCappedJson } from "../json-cap.js";
import { canonicalNotification } from "./finding-canonical.js";
import { FINDING_CONSUMED, isProtoDefault, RESOURCE_CONSUMED, residualFields } from "./finding-details.js";
import { EXPECTED_SHAPES } from "./finding-file.js";
import { findingIocOccurrences } from "./finding-iocs.js";
import {
  type EnvelopeKind,
  type SccNotification,
  SccNotificationSchema,
  unwrapEnvelope,
} from "./notification.js";
import { severityHints } from "./severity-hints.js";

export const SeveritySchema = z.enum(["CRITICAL", "HIGH", "MEDIUM", "LOW", "SEVERITY_UNSPECIFIED"]);
export type Severity = z.infer<typeof SeveritySchema>;
export const SEVERITY_RANK: Record<Severity, number> = {
  SEVERITY_UNSPECIFIED: 0,
  LOW: 1,
  MEDIUM: 2,
  HIGH: 3,
  CRITICAL: 4,
};

/** Caps so a hostile or runaway notification cannot blow up prompts or Firestore documents. */
export const FINDING_LIMITS = {
  stringChars: 4_000,
  listItems: 100,
  sourcePropertiesBytes: 32_000,
  /** Budget of the verbatim `details` (documented fields ferret does not type). */
  detailsBytes: 32_000,
  /** Nesting kept in free-form JSON; deeper values become a marker. */
  maxDepth: 16,
} as const;

const CappedStr = z.string().max(FINDING_LIMITS.stringChars);
const CappedList = (item: z.ZodType<string>) => z.array(item).max(FINDING_LIMITS.listItems);

export const FindingSchema = z.object({
  name: CappedStr,
  category: CappedStr,
  severity: SeveritySchema,
  findingClass: CappedStr,
  state: CappedStr,
  mute: CappedStr,
  eventTime: z.iso.datetime({ offset: true }),
  createTime: z.iso.datetime({ offset: true }).optional(),
  description: CappedStr.optional(),
  externalUri: CappedStr.optional(),
  notificationConfigName: CappedStr.optional(),
  /** The project-scoped name (v2 and recent v1); `name` may be organization-scoped. */
  canonicalName: CappedStr.optional(),
  /** The source's display name, e.g. "Event Threat Detection". */
  parentDisplayName: CappedStr.optional(),
  /** SCC's own remediation steps, Markdown. */
  nextSteps: CappedStr.optional(),
  /**
   * Where `severity` came from: "finding" (its own field), a sourceProperties hint path
   * (see severity-hints.ts), or "none". Absent on findings stored before it existed.
   */
  severitySource: CappedStr.optional(),
  /** Which shape the finding arrived in (notification, export row, bare finding, ETD log entry). */
  envelope: z.enum(["notification", "export", "finding", "log-entry"]).optional(),
  resource: z.object({
    name: CappedStr,
    type: CappedStr.optional(),
    project: CappedStr.optional(),
    projectDisplayName: CappedStr.optional(),
    displayName: CappedStr.optional(),
  }),
  indicators: z.object({
    ipAddresses: CappedList(CappedStr),
    domains: CappedList(CappedStr),
    uris: CappedList(CappedStr),
    hashes: CappedList(CappedStr),
    signatures: CappedList(CappedStr),
  }),
  access: z
    .object({
      principalEmail: CappedStr.optional(),
      callerIp: CappedStr.optional(),
      callerIpRegion: CappedStr.optional(),
      userAgent: CappedStr.optional(),
      serviceName: CappedStr.optional(),
      methodName: CappedStr.optional(),
      serviceAccountKeyName: CappedStr.optional(),
      principalSubject: CappedStr.optional(),
      userName: CappedStr.optional(),
      /** serviceAccountDelegationInfo: each delegate's email (or subject), first first. */
      delegationChain: CappedList(CappedStr).optional(),
    })
    .optional(),
  processes: z
    .array(
      z.object({
        name: CappedStr.optional(),
        binaryPath: CappedStr.optional(),
        sha256: CappedStr.optional(),
        args: CappedList(CappedStr),
        pid: CappedStr.optional(),
        parentPid: CappedStr.optional(),
      }),
    )
    .max(FINDING_LIMITS.listItems),
  connections: z
    .array(
      z.object({
        destinationIp: CappedStr.optional(),
        destinationPort: z.number().int().optional(),
        sourceIp: CappedStr.optional(),
        sourcePort: z.number().int().optional(),
        protocol: CappedStr.optional(),
      }),
    )
    .max(FINDING_LIMITS.listItems),
  iamBindings: z
    .array(
      z.object({ action: CappedStr.optional(), role: CappedStr.optional(), member: CappedStr.optional() }),
    )
    .max(FINDING_LIMITS.listItems),
  files: z
    .array(z.object({ path: CappedStr.optional(), sha256: CappedStr.optional() }))
    .max(FINDING_LIMITS.listItems),
  mitre: z.object({
    primaryTactic: CappedStr.optional(),
    techniques: CappedList(CappedStr),
    tactics: CappedList(CappedStr),
  }),
  sourceProperties: z.record(z.string(), JsonValueSchema),
  /**
   * Every other documented (or new) Finding and Resource field, verbatim, keyed by its path
   * ("exfiltration", "kubernetes", "processes" for untyped process parts, "resource.folders"…).
   * See finding-details.ts. Absent on findings stored before it existed.
   */
  details: z.record(z.string(), JsonValueSchema).optional(),
  /** What normalization noticed: fields of an unexpected shape kept verbatim, hints used. */
  notes: z.array(z.string()).optional(),
  /** Paths of fields that were cut to fit FINDING_LIMITS; shown to the agent so it knows. */
  truncated: z.array(z.string()),
});
export type Finding = z.infer<typeof FindingSchema>;

class Truncator {
  readonly paths: string[] = [];
  str(value: unknown, path: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    const s = typeof value === "string" ? value : String(value);
    if (s.length <= FINDING_LIMITS.stringChars) return s;
    this.paths.push(path);
    return `${s.slice(0, FINDING_LIMITS.stringChars - 20)}…[truncated]`;
  }
  list<T>(values: readonly T[] | undefined, path: string): T[] {
    if (!values) return [];
    if (values.length <= FINDING_LIMITS.listItems) return [...values];
    this.paths.push(path);
    return values.slice(0, FINDING_LIMITS.listItems);
  }
  strs(values: readonly string[] | undefined, path: string): string[] {
    return this.list(values, path).map((v, i) => this.str(v, `${path}[${i}]`) ?? "");
  }
}

function toSeverity(raw: string | undefined): Severity {
  const parsed = SeveritySchema.safeParse((raw ?? "").toUpperCase());
  return parsed.success ? parsed.data : "SEVERITY_UNSPECIFIED";
}

function signatureLabels(n: SccNotification, sourceProperties: Record<string, JsonValue>): string[] {
  const out: string[] = [];
  for (const sig of n.finding.indicator?.signatures ?? []) {
    const family = sig.memoryHashSignature?.binaryFamily;
    if (family) out.push(`memory-hash:${family}`);
    for (const d of sig.memoryHashSignature?.detections ?? [])
      if (d.binary) out.push(`memory-hash-binary:${d.binary}`);
    if (sig.yaraRuleSignature?.yaraRule) out.push(`yara:${sig.yaraRuleSignature.yaraRule}`);
  }
  // VM Threat Detection findings from before `indicator.signatures` carry their detections in
  // sourceProperties.threats (memory_hash_detector / yara_rule_detector).
  const threats = sourceProperties.threats;
  for (const threat of Array.isArray(threats) ? threats : []) {
    if (!isJsonObject(threat)) continue;
    const memory = threat.memory_hash_detector;
    if (isJsonObject(memory)) {
      if (typeof memory.binary === "string") out.push(`memory-hash:${memory.binary}`);
      for (const d of Array.isArray(memory.detections) ? memory.detections : [])
        if (isJsonObject(d) && typeof d.binary_name === "string")
          out.push(`memory-hash-binary:${d.binary_name}`);
    }
    const yara = threat.yara_rule_detector;
    if (isJsonObject(yara) && typeof yara.yara_rule_name === "string")
      out.push(`yara:${yara.yara_rule_name}`);
  }
  return [...new Set(out)];
}

function isJsonObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const JSON_LIMITS = {
  stringChars: FINDING_LIMITS.stringChars,
  listItems: FINDING_LIMITS.listItems,
  maxDepth: FINDING_LIMITS.maxDepth,
};

/** sourceProperties as a capped object; any other shape is noted (and kept in details). */
function readSourceProperties(
  raw: unknown,
  cuts: CutList,
  notes: string[],
): { props: Record<string, JsonValue>; unparsed?: JsonValue } {
  if (raw === undefined || raw === null) return { props: {} };
  if (isJsonObject(raw)) {
    const capped = toCappedJson(raw, "sourceProperties", JSON_LIMITS, cuts) as Record<string, JsonValue>;
    return { props: fitBudget(capped, FINDING_LIMITS.sourcePropertiesBytes, "sourceProperties", cuts) };
  }
  if (isProtoDefault(raw)) {
    notes.push(`sourceProperties was ${JSON.stringify(raw)}, read as no properties`);
    return { props: {} };
  }
  notes.push("sourceProperties is not an object; kept verbatim in details");
  return { props: {}, unparsed: toCappedJson(raw, "sourceProperties", JSON_LIMITS, cuts) };
}

/** Raw notifications as received, and their envelope, keyed by the parsed object. */
const RAW = new WeakMap<
  object,
  { raw: Record<string, unknown>; envelope: EnvelopeKind; notes: readonly string[] }
>();

/**
 * Parses the Pub/Sub payload (already base64-decoded) into an SCC notification. An SCC
 * export row or a bare finding is accepted too (see unwrapEnvelope). Only the name, the
 * category and the eventTime are required; see notification.ts.
 */
export function parseNotification(payload: unknown): SccNotification {
  assertJsonBounds(payload, "the notification");
  const { payload: unwrapped, envelope } = unwrapEnvelope(payload);
  const canonical = canonicalNotification(unwrapped);
  if (
    typeof canonical.payload !== "object" ||
    canonical.payload === null ||
    !("finding" in canonical.payload)
  )
    throw new InvalidInputError(`not an SCC notification: no finding in it; expected ${EXPECTED_SHAPES}`);
  const result = SccNotificationSchema.safeParse(canonical.payload);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new InvalidInputError(`not an SCC notification: ${issues.join("; ")}`, { issues });
  }
  RAW.set(result.data, { raw: canonical.payload, envelope, notes: canonical.notes });
  return result.data;
}

/**
 * The notification as received, in its canonical form (finding-canonical.ts), uncapped: what
 * grouping compares field for field. The parsed object itself when it was not parsed here.
 */
export function receivedPayload(n: SccNotification): Record<string, unknown> {
  return RAW.get(n)?.raw ?? (n as Record<string, unknown>);
}

/** An optional timestamp ferret does not rely on: kept when it is ISO 8601, else noted. */
function isoTime(value: string | undefined, path: string, notes: string[]): string | undefined {
  if (value === undefined) return undefined;
  if (z.iso.datetime({ offset: true }).safeParse(value).success) return value;
  notes.push(`${path} ${JSON.stringify(value.slice(0, 40))} is not an ISO 8601 time; left out`);
  return undefined;
}

/** `{ key: value }` when there is a value, so fields added later do not appear as undefined keys. */
function optionalField<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

function nonEmpty(...values: (string | undefined)[]): string | undefined {
  return values.find((v) => typeof v === "string" && v.trim() !== "");
}

/** Finding and resource keys SCC sent whose typed parse failed (a shape ferret did not expect). */
function unparsedKeys(raw: Record<string, unknown> | undefined, parsed: Record<string, unknown> | undefined) {
  const keys = new Set<string>();
  for (const [key, value] of Object.entries(raw ?? {}))
    if (value !== undefined && value !== null && parsed?.[key] === undefined) keys.add(key);
  return keys;
}

/** Turns a v1 or v2 SCC notification into the Finding the agent works on. */
export function normalizeNotification(n: SccNotification): Finding {
  const t = new Truncator();
  const cuts = new CutList();
  const received = RAW.get(n);
  const notes: string[] = [...(received?.notes ?? [])];
  const f = n.finding;
  const r = n.resource;
  const rawNotification = received?.raw ?? (n as Record<string, unknown>);
  const rawFinding = (rawNotification.finding ?? {}) as Record<string, unknown>;
  const rawResource = isJsonObject(rawNotification.resource)
    ? (rawNotification.resource as Record<string, unknown>)
    : undefined;

  const badFinding = unparsedKeys(rawFinding, f as Record<string, unknown>);
  badFinding.delete("sourceProperties");
  const badResource = unparsedKeys(rawResource, r as Record<string, unknown> | undefined);
  for (const key of badFinding)
    if (!isProtoDefault(rawFinding[key]))
      notes.push(`finding.${key} has an unexpected shape; kept verbatim in details`);
  for (const key of badResource)
    if (!isProtoDefault(rawResource?.[key]))
      notes.push(`resource.${key} has an unexpected shape; kept verbatim in details`);

  const sp = readSourceProperties(f.sourceProperties, cuts, notes);
  const hashes = [
    ...(f.processes ?? []).flatMap((p) => [p.binary?.sha256, p.script?.sha256]),
    ...(f.files ?? []).map((file) => file.sha256),
  ].filter((h): h is string => typeof h === "string" && h.length > 0);

  const own = toSeverity(f.severity);
  const hint =
    own === "SEVERITY_UNSPECIFIED"
      ? severityHints(sp.props).find((h) => toSeverity(h.raw) !== "SEVERITY_UNSPECIFIED")
      : undefined;
  const severity = hint ? toSeverity(hint.raw) : own;
  const severitySource = own !== "SEVERITY_UNSPECIFIED" ? "finding" : (hint?.path ?? "none");
  if (hint) notes.push(`severity ${severity} taken from ${hint.path} (the finding has none)`);

  const rawDetails: Record<string, unknown> = {
    ...residualFields(rawFinding, FINDING_CONSUMED, "", badFinding),
    ...residualFields(rawResource, RESOURCE_CONSUMED, "resource.", badResource),
  };
  if (sp.unparsed !== undefined) rawDetails.sourceProperties = sp.unparsed;
  for (const [key, value] of Object.entries(rawNotification))
    if (key !== "finding" && key !== "resource" && key !== "notificationConfigName" && !isProtoDefault(value))
      rawDetails[`notification.${key}`] = value;
  const capped = toCappedJson(rawDetails, "", JSON_LIMITS, cuts) as Record<string, JsonValue>;
  const details = fitBudget(capped, FINDING_LIMITS.detailsBytes, "", cuts);

  const delegates = (f.access?.serviceAccountDelegationInfo ?? [])
    .map((d) => nonEmpty(d.principalEmail, d.principalSubject))
    .filter((d): d is string => d !== undefined);
  const rawFindingResource = isJsonObject(rawFinding.resource) ? rawFinding.resource : undefined;

  const finding: Finding = {
    name: t.str(f.name, "name") ?? "",
    category: t.str(f.category, "category") ?? "",
    severity,
    severitySource,
    findingClass: t.str(nonEmpty(f.findingClass) ?? "FINDING_CLASS_UNSPECIFIED", "findingClass") ?? "",
    state: t.str(nonEmpty(f.state) ?? "STATE_UNSPECIFIED", "state") ?? "",
    mute: t.str(nonEmpty(f.mute) ?? "MUTE_UNSPECIFIED", "mute") ?? "",
    eventTime: f.eventTime,
    createTime: isoTime(nonEmpty(f.createTime), "createTime", notes),
    description: t.str(nonEmpty(f.description), "description"),
    externalUri: t.str(nonEmpty(f.externalUri), "externalUri"),
    notificationConfigName: t.str(nonEmpty(n.notificationConfigName), "notificationConfigName"),
    canonicalName: t.str(nonEmpty(f.canonicalName), "canonicalName"),
    parentDisplayName: t.str(nonEmpty(f.parentDisplayName), "parentDisplayName"),
    nextSteps: t.str(nonEmpty(f.nextSteps), "nextSteps"),
    envelope: received?.envelope,
    resource: {
      // The finding's own resourceName, the notification's resource, or a resource object
      // some newer findings carry inside the finding itself.
      name:
        t.str(
          nonEmpty(
            f.resourceName,
            r?.name,
            typeof rawFindingResource?.name === "string" ? rawFindingResource.name : undefined,
          ) ?? "",
          "resource.name",
        ) ?? "",
      type: t.str(nonEmpty(r?.type), "resource.type"),
      project: t.str(
        nonEmpty(r?.project, r?.gcpMetadata?.project, r?.projectName, r?.project_name),
        "resource.project",
      ),
      projectDisplayName: t.str(
        nonEmpty(r?.projectDisplayName, r?.gcpMetadata?.projectDisplayName, r?.project_display_name),
        "resource.projectDisplayName",
      ),
      displayName: t.str(nonEmpty(r?.displayName, r?.display_name), "resource.displayName"),
    },
    indicators: {
      ipAddresses: t.strs(f.indicator?.ipAddresses, "indicator.ipAddresses"),
      domains: t.strs(f.indicator?.domains, "indicator.domains"),
      uris: t.strs(f.indicator?.uris, "indicator.uris"),
      hashes: t.strs([...new Set(hashes.map((h) => h.toLowerCase()))], "hashes"),
      signatures: t.strs(signatureLabels(n, sp.props), "indicator.signatures"),
    },
    access: f.access
      ? {
          principalEmail: t.str(nonEmpty(f.access.principalEmail), "access.principalEmail"),
          callerIp: t.str(nonEmpty(f.access.callerIp), "access.callerIp"),
          callerIpRegion: t.str(nonEmpty(f.access.callerIpGeo?.regionCode), "access.callerIpGeo.regionCode"),
          userAgent: t.str(nonEmpty(f.access.userAgent), "access.userAgent"),
          serviceName: t.str(nonEmpty(f.access.serviceName), "access.serviceName"),
          methodName: t.str(nonEmpty(f.access.methodName), "access.methodName"),
          serviceAccountKeyName: t.str(
            nonEmpty(f.access.serviceAccountKeyName),
            "access.serviceAccountKeyName",
          ),
          ...optionalField(
            "principalSubject",
            t.str(nonEmpty(f.access.principalSubject), "access.principalSubject"),
          ),
          ...optionalField("userName", t.str(nonEmpty(f.access.userName), "access.userName")),
          ...(delegates.length > 0
            ? { delegationChain: t.strs(delegates, "access.serviceAccountDelegationInfo") }
            : {}),
        }
      : undefined,
    processes: t.list(f.processes, "processes").map((p, i) => ({
      name: t.str(p.name, `processes[${i}].name`),
      binaryPath: t.str(p.binary?.path, `processes[${i}].binary.path`),
      sha256: t.str(p.binary?.sha256?.toLowerCase(), `processes[${i}].binary.sha256`),
      args: t.strs(p.args, `processes[${i}].args`),
      pid: t.str(p.pid, `processes[${i}].pid`),
      parentPid: t.str(p.parentPid, `processes[${i}].parentPid`),
    })),
    connections: t.list(f.connections, "connections").map((c, i) => ({
      destinationIp: t.str(c.destinationIp, `connections[${i}].destinationIp`),
      destinationPort: c.destinationPort,
      sourceIp: t.str(c.sourceIp, `connections[${i}].sourceIp`),
      sourcePort: c.sourcePort,
      protocol: t.str(c.protocol, `connections[${i}].protocol`),
    })),
    iamBindings: t.list(f.iamBindings, "iamBindings").map((b, i) => ({
      action: t.str(b.action, `iamBindings[${i}].action`),
      role: t.str(b.role, `iamBindings[${i}].role`),
      member: t.str(b.member, `iamBindings[${i}].member`),
    })),
    files: t.list(f.files, "files").map((file, i) => ({
      path: t.str(file.path, `files[${i}].path`),
      sha256: t.str(file.sha256?.toLowerCase(), `files[${i}].sha256`),
    })),
    mitre: {
      primaryTactic: t.str(nonEmpty(f.mitreAttack?.primaryTactic), "mitreAttack.primaryTactic"),
      techniques: t.strs(
        [...(f.mitreAttack?.primaryTechniques ?? []), ...(f.mitreAttack?.additionalTechniques ?? [])],
        "mitreAttack.techniques",
      ),
      tactics: t.strs(f.mitreAttack?.additionalTactics, "mitreAttack.additionalTactics"),
    },
    sourceProperties: sp.props,
    ...(Object.keys(details).length > 0 ? { details } : {}),
    ...(notes.length > 0 ? { notes } : {}),
    truncated: [],
  };
  finding.truncated = [...t.paths, ...cuts.paths];
  const checked = FindingSchema.safeParse(finding);
  if (!checked.success) {
    const issues = checked.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new InvalidInputError(`finding failed normalization: ${issues.join("; ")}`, { issues });
  }
  return checked.data;
}

/**
 * Every IOC the finding carries, typed, each with the JSON path it was read from: documented
 * fields, sourceProperties (nested or flattened) and the verbatim details (finding-iocs.ts).
 * The seed for planning and for intel lookups.
 */
export function findingIocs(f: Finding): Ioc[] {
  return findingIocOccurrences(f).iocs;
}

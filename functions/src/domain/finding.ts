import { isIP } from "node:net";
import { z } from "zod";
import { InvalidInputError } from "./errors.js";
import { extractIocs, type Ioc, mergeIocs } from "./ioc.js";
import { assertJsonBounds, type JsonValue, JsonValueSchema, jsonBytes } from "./json.js";
import { type SccNotification, SccNotificationSchema } from "./notification.js";

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

function signatureLabels(n: SccNotification): string[] {
  const out: string[] = [];
  for (const sig of n.finding.indicator?.signatures ?? []) {
    const family = sig.memoryHashSignature?.binaryFamily;
    if (family) out.push(`memory-hash:${family}`);
    for (const d of sig.memoryHashSignature?.detections ?? [])
      if (d.binary) out.push(`memory-hash-binary:${d.binary}`);
    if (sig.yaraRuleSignature?.yaraRule) out.push(`yara:${sig.yaraRuleSignature.yaraRule}`);
  }
  return out;
}

function capSourceProperties(
  props: Record<string, unknown> | undefined,
  t: Truncator,
): Record<string, JsonValue> {
  if (!props) return {};
  const parsed = z.record(z.string(), JsonValueSchema).safeParse(props);
  const safe = parsed.success ? parsed.data : {};
  if (jsonBytes(safe) <= FINDING_LIMITS.sourcePropertiesBytes) return safe;
  t.paths.push("sourceProperties");
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(safe)) {
    const next = { ...out, [k]: v };
    if (jsonBytes(next) > FINDING_LIMITS.sourcePropertiesBytes) break;
    out[k] = v;
  }
  return out;
}

/** Parses the Pub/Sub payload (already base64-decoded) into an SCC notification. */
export function parseNotification(payload: unknown): SccNotification {
  assertJsonBounds(payload, "the notification");
  const result = SccNotificationSchema.safeParse(payload);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new InvalidInputError(`not an SCC notification: ${issues.join("; ")}`, { issues });
  }
  return result.data;
}

/** Turns a v1 or v2 SCC notification into the Finding the agent works on. */
export function normalizeNotification(n: SccNotification): Finding {
  const t = new Truncator();
  const f = n.finding;
  const r = n.resource;
  const hashes = [
    ...(f.processes ?? []).flatMap((p) => [p.binary?.sha256, p.script?.sha256]),
    ...(f.files ?? []).map((file) => file.sha256),
  ].filter((h): h is string => typeof h === "string" && h.length > 0);

  const finding: Finding = {
    name: t.str(f.name, "name") ?? "",
    category: t.str(f.category, "category") ?? "",
    severity: toSeverity(f.severity),
    findingClass: t.str(f.findingClass ?? "FINDING_CLASS_UNSPECIFIED", "findingClass") ?? "",
    state: t.str(f.state ?? "STATE_UNSPECIFIED", "state") ?? "",
    mute: t.str(f.mute ?? "MUTE_UNSPECIFIED", "mute") ?? "",
    eventTime: f.eventTime,
    createTime: f.createTime,
    description: t.str(f.description, "description"),
    externalUri: t.str(f.externalUri, "externalUri"),
    notificationConfigName: t.str(n.notificationConfigName, "notificationConfigName"),
    resource: {
      name: t.str(r?.name ?? f.resourceName ?? "", "resource.name") ?? "",
      type: t.str(r?.type, "resource.type"),
      project: t.str(r?.project ?? r?.gcpMetadata?.project, "resource.project"),
      projectDisplayName: t.str(
        r?.projectDisplayName ?? r?.gcpMetadata?.projectDisplayName,
        "resource.projectDisplayName",
      ),
      displayName: t.str(r?.displayName, "resource.displayName"),
    },
    indicators: {
      ipAddresses: t.strs(f.indicator?.ipAddresses, "indicator.ipAddresses"),
      domains: t.strs(f.indicator?.domains, "indicator.domains"),
      uris: t.strs(f.indicator?.uris, "indicator.uris"),
      hashes: t.strs([...new Set(hashes.map((h) => h.toLowerCase()))], "hashes"),
      signatures: t.strs(signatureLabels(n), "indicator.signatures"),
    },
    access: f.access
      ? {
          principalEmail: t.str(f.access.principalEmail, "access.principalEmail"),
          callerIp: t.str(f.access.callerIp, "access.callerIp"),
          callerIpRegion: t.str(f.access.callerIpGeo?.regionCode, "access.callerIpGeo.regionCode"),
          userAgent: t.str(f.access.userAgent, "access.userAgent"),
          serviceName: t.str(f.access.serviceName, "access.serviceName"),
          methodName: t.str(f.access.methodName, "access.methodName"),
          serviceAccountKeyName: t.str(f.access.serviceAccountKeyName, "access.serviceAccountKeyName"),
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
      primaryTactic: t.str(f.mitreAttack?.primaryTactic, "mitreAttack.primaryTactic"),
      techniques: t.strs(
        [...(f.mitreAttack?.primaryTechniques ?? []), ...(f.mitreAttack?.additionalTechniques ?? [])],
        "mitreAttack.techniques",
      ),
      tactics: t.strs(f.mitreAttack?.additionalTactics, "mitreAttack.additionalTactics"),
    },
    sourceProperties: capSourceProperties(f.sourceProperties, t),
    truncated: [],
  };
  finding.truncated = t.paths;
  const checked = FindingSchema.safeParse(finding);
  if (!checked.success) {
    const issues = checked.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new InvalidInputError(`finding failed normalization: ${issues.join("; ")}`, { issues });
  }
  return checked.data;
}

/** Every IOC the finding itself carries, typed; the seed for planning and for intel lookups. */
export function findingIocs(f: Finding): Ioc[] {
  const listed: Ioc[] = [
    ...f.indicators.ipAddresses.map((value): Ioc => ({ type: "ip", value, context: "SCC indicator" })),
    ...f.indicators.domains.map(
      (value): Ioc => ({ type: "domain", value: value.toLowerCase(), context: "SCC indicator" }),
    ),
    ...f.indicators.uris.map((value): Ioc => ({ type: "url", value, context: "SCC indicator" })),
    ...f.indicators.hashes.map((value): Ioc => ({ type: "hash", value, context: "process or file hash" })),
    ...f.connections.flatMap((c): Ioc[] =>
      c.destinationIp
        ? [
            {
              type: "ip",
              value: c.destinationIp,
              context: `connection destination port ${c.destinationPort ?? "?"}`,
            },
          ]
        : [],
    ),
  ];
  // Audit logs redact some callers to "gce-internal-ip" (or "private"); only a real address is an IP IOC.
  if (f.access?.callerIp && isIP(f.access.callerIp))
    listed.push({ type: "ip", value: f.access.callerIp, context: "caller IP" });
  if (f.access?.principalEmail)
    listed.push({ type: "principal", value: f.access.principalEmail, context: "acting principal" });
  for (const b of f.iamBindings) {
    if (b.member)
      listed.push({
        type: "principal",
        value: b.member.replace(/^(user|serviceAccount|group):/, ""),
        context: `IAM ${b.action ?? ""} ${b.role ?? ""}`.trim(),
      });
  }
  const fromArgs = f.processes.flatMap((p) => extractIocs(p.args.join(" ")));
  return mergeIocs(listed, fromArgs);
}

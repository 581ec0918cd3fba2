import type { Finding } from "../domain/finding/finding.js";
import { findingIocs } from "../domain/finding/finding.js";
import { extractIocs } from "../domain/ioc.js";
import {
  type IdentifierKind,
  identifiersOf,
  type LogIdentifiers,
  resolveLogIdentifiers,
} from "../domain/log-identifiers.js";
import { techniqueIds } from "../domain/mitre-techniques.js";
import { type FamilyId, familyOf } from "./families.js";
import { bareMember, isPublicIp } from "./net.js";
import { type TimeWindow, windowAround } from "./time-window.js";

/** An IAM member the finding says was granted a role. */
export interface GrantedMember {
  member: string;
  role?: string;
}

/**
 * The concrete values of a finding that playbooks put into queries: everything is read
 * from the finding's fields, so a renamed project or a new IP changes the queries and
 * nothing else.
 */
export interface Subject {
  family: FamilyId;
  category: string;
  /** ATT&CK ids of the detector's own technique names (mitreAttack.primaryTechniques…). */
  techniques: string[];
  /** The detector's severity: the floor of a confirmed finding's, never lowered for missing evidence. */
  severity: Finding["severity"];
  eventTime: string;
  window: TimeWindow;
  project?: string;
  resourceName: string;
  /** Last path segment of the resource name: for sentences and audit resourceName matching only, never a VM name. */
  resourceShort: string;
  /** Every identifier the log tables use, with its kind (domain/log-identifiers.ts). */
  ids: LogIdentifiers;
  /** A Compute Engine VM's name (the resource itself, a GKE node, properties.instanceDetails); never another kind's name. */
  instance?: string;
  /** Every VM name the finding names (a GKE finding's nodes). */
  instances: string[];
  bucket?: string;
  /** The name audit logs carry in resourceName for the finding's own resource (cluster, dataset, perimeter…). */
  auditResource: string;
  principal?: string;
  callerIp?: string;
  userAgent?: string;
  /** Public IPs the finding names (indicators, connection ends, caller). */
  publicIps: string[];
  /** Public IPs on the remote side of the finding's connections or indicators (pool, C2, attacker). */
  remoteIps: string[];
  /** Every public IP the finding names anywhere (indicators, connections, caller, sourceProperties), remote ones first. */
  iocIps: string[];
  domains: string[];
  hashes: string[];
  processNames: string[];
  ports: number[];
  granted: GrantedMember[];
  /** The finding's verbatim detail blocks (kubernetes, loadBalancers, exfiltration…), keyed by field. */
  details: Readonly<Record<string, unknown>>;
}

/**
 * How far back a principal's history is read (principal_history): long enough for a monthly
 * habit to show three times, short enough for a scan cap.
 */
export const HISTORY_DAYS = 90;

/** The look-back start for a window that begins at `recent`. */
export function lookBackStart(recent: string): string {
  const ms = Date.parse(recent) - HISTORY_DAYS * 86_400_000;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Hours before/after eventTime each family looks at first. */
const WINDOW_HOURS: Record<FamilyId, [number, number]> = {
  cryptomining: [6, 1],
  bad_indicator: [6, 1],
  brute_force: [6, 1],
  iam_grant: [24, 6],
  credential_access: [24, 6],
  public_bucket: [72, 6],
  exfiltration: [24, 6],
  admin_change: [24, 6],
  runtime: [6, 1],
  // A configuration may have been set long before the scan that found it.
  posture: [168, 6],
  generic: [6, 1],
};

function lastSegment(name: string): string {
  const parts = name.split("/").filter((p) => p.length > 0);
  return parts.at(-1) ?? name;
}

/** The term that finds the resource in audit logs' resourceName: its own name, not a project number. */
function auditResourceOf(finding: Finding, ids: LogIdentifiers): string {
  const kind: IdentifierKind | undefined = ids.resourceKind;
  const own =
    kind === "instance_id"
      ? identifiersOf(ids, "instance_name")[0]
      : kind
        ? identifiersOf(ids, kind)[0]
        : undefined;
  if (own) return own;
  const display = finding.resource.displayName;
  return display && /^[A-Za-z0-9][A-Za-z0-9._@-]*$/.test(display)
    ? display
    : lastSegment(finding.resource.name);
}

function uniq<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/** Members named in the finding's IAM bindings; emails in sourceProperties when there are none. */
function grantedMembers(finding: Finding): GrantedMember[] {
  const fromBindings = finding.iamBindings
    .filter((b) => b.member && !/^remove$/i.test(b.action ?? ""))
    .map((b) => ({ member: bareMember(b.member ?? ""), ...(b.role ? { role: b.role } : {}) }));
  if (fromBindings.length > 0) return fromBindings;
  const text = JSON.stringify(finding.sourceProperties);
  const principal = finding.access?.principalEmail?.toLowerCase();
  const role = /roles\/[A-Za-z0-9_.]+/.exec(text)?.[0];
  return extractIocs(text)
    .filter((ioc) => ioc.type === "email" && ioc.value.toLowerCase() !== principal)
    .map((ioc) => ({ member: ioc.value, ...(role ? { role } : {}) }));
}

export function subjectOf(finding: Finding): Subject {
  const family = familyOf(finding);
  const [before, after] = WINDOW_HOURS[family];
  const argIocs = finding.processes.flatMap((p) => extractIocs(p.args.join(" ")));
  // Brute force is inbound (the remote end is the source); everything else is egress.
  const inbound = family === "brute_force";
  const connectionRemote = finding.connections
    .map((c) => (inbound ? c.sourceIp : c.destinationIp))
    .filter((ip): ip is string => Boolean(ip && isPublicIp(ip)));
  const indicatorIps = finding.indicators.ipAddresses.filter(isPublicIp);
  const argIps = argIocs.filter((i) => i.type === "ip").map((i) => i.value);
  const remoteIps = uniq([...indicatorIps, ...connectionRemote, ...argIps]);
  const callerIp = finding.access?.callerIp;
  const ids = resolveLogIdentifiers(finding);
  const instances = identifiersOf(ids, "instance_name");
  const instance = instances[0];
  const bucket = identifiersOf(ids, "bucket")[0];
  const project = identifiersOf(ids, "project_id")[0];
  return {
    family,
    category: finding.category,
    severity: finding.severity,
    techniques: techniqueIds(finding.mitre.techniques),
    eventTime: finding.eventTime,
    window: windowAround(finding.eventTime, before, after),
    ...(project ? { project } : {}),
    resourceName: finding.resource.name,
    resourceShort: lastSegment(finding.resource.name),
    ids,
    ...(instance ? { instance } : {}),
    instances,
    ...(bucket ? { bucket } : {}),
    auditResource: auditResourceOf(finding, ids),
    ...(finding.access?.principalEmail ? { principal: finding.access.principalEmail } : {}),
    ...(callerIp ? { callerIp } : {}),
    ...(finding.access?.userAgent ? { userAgent: finding.access.userAgent } : {}),
    publicIps: uniq([...remoteIps, ...(callerIp && isPublicIp(callerIp) ? [callerIp] : [])]),
    remoteIps,
    iocIps: uniq([
      ...remoteIps,
      ...findingIocs(finding)
        .filter((i) => i.type === "ip" && isPublicIp(i.value))
        .map((i) => i.value),
    ]),
    domains: uniq([
      ...finding.indicators.domains.map((d) => d.toLowerCase()),
      ...argIocs.filter((i) => i.type === "domain").map((i) => i.value),
    ]),
    hashes: uniq(finding.indicators.hashes.map((h) => h.toLowerCase())),
    processNames: uniq(
      finding.processes
        .flatMap((p) => [p.name, p.binaryPath ? lastSegment(p.binaryPath) : undefined])
        .filter((n): n is string => Boolean(n)),
    ),
    ports: uniq(
      finding.connections.map((c) => c.destinationPort).filter((p): p is number => typeof p === "number"),
    ),
    granted: grantedMembers(finding),
    details: finding.details ?? {},
  };
}

import type { Finding } from "../../domain/finding.js";
import { extractIocs } from "../../domain/ioc.js";
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
  eventTime: string;
  window: TimeWindow;
  project?: string;
  resourceName: string;
  /** Last path segment of the resource name, e.g. the instance or bucket name. */
  resourceShort: string;
  instance?: string;
  bucket?: string;
  principal?: string;
  callerIp?: string;
  userAgent?: string;
  /** Public IPs the finding names (indicators, connection ends, caller). */
  publicIps: string[];
  /** Public IPs on the remote side of the finding's connections or indicators (pool, C2, attacker). */
  remoteIps: string[];
  domains: string[];
  hashes: string[];
  processNames: string[];
  ports: number[];
  granted: GrantedMember[];
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

/** The VM's name: SCC resource names often carry the numeric instance id, which no log query matches. */
function instanceOf(finding: Finding): string | undefined {
  const segment = /\/instances\/([^/?]+)/.exec(finding.resource.name)?.[1];
  const isVm = segment !== undefined || /instance/i.test(finding.resource.type ?? "");
  if (!isVm) return undefined;
  const named = [
    finding.resource.displayName,
    stringProperty(finding.sourceProperties, /^(vm_?)?instance_?name$|^vm_?name$/i),
    /\/instances\/([a-z][a-z0-9-]*)/.exec(finding.externalUri ?? "")?.[1],
  ].find((n): n is string => typeof n === "string" && /^[a-z][a-z0-9-]{0,62}$/.test(n));
  if (named) return named;
  return segment ?? lastSegment(finding.resource.name);
}

function stringProperty(props: Finding["sourceProperties"], key: RegExp): string | undefined {
  for (const [k, v] of Object.entries(props)) if (key.test(k) && typeof v === "string") return v;
  return undefined;
}

function bucketOf(finding: Finding): string | undefined {
  const match = /\/\/storage\.googleapis\.com\/(?:projects\/_\/buckets\/)?([^/]+)/.exec(
    finding.resource.name,
  );
  if (match?.[1]) return match[1];
  if (/bucket/i.test(finding.resource.type ?? ""))
    return finding.resource.displayName ?? lastSegment(finding.resource.name);
  return undefined;
}

function projectOf(finding: Finding): string | undefined {
  if (finding.resource.projectDisplayName) return finding.resource.projectDisplayName;
  const fromResource = /\/projects\/([^/]+)/.exec(finding.resource.name)?.[1];
  if (fromResource && fromResource !== "_") return fromResource;
  return finding.resource.project ? lastSegment(finding.resource.project) : undefined;
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
  const instance = instanceOf(finding);
  const bucket = bucketOf(finding);
  const project = projectOf(finding);
  return {
    family,
    category: finding.category,
    eventTime: finding.eventTime,
    window: windowAround(finding.eventTime, before, after),
    ...(project ? { project } : {}),
    resourceName: finding.resource.name,
    resourceShort: lastSegment(finding.resource.name),
    ...(instance ? { instance } : {}),
    ...(bucket ? { bucket } : {}),
    ...(finding.access?.principalEmail ? { principal: finding.access.principalEmail } : {}),
    ...(callerIp ? { callerIp } : {}),
    ...(finding.access?.userAgent ? { userAgent: finding.access.userAgent } : {}),
    publicIps: uniq([...remoteIps, ...(callerIp && isPublicIp(callerIp) ? [callerIp] : [])]),
    remoteIps,
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
  };
}

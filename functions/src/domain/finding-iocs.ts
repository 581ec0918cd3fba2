import { isIP } from "node:net";
import { isDomainName, normalizeHost } from "./domain-grammar.js";
import type { Finding } from "./finding.js";
import { extractIocs, type Ioc, type IocType, iocKey, isPrivateOrReservedIpv4 } from "./ioc.js";
import type { JsonValue } from "./json.js";
import { childPath } from "./json-cap.js";

/**
 * Every IOC a finding carries, from every place one lives, each with the JSON path it was
 * read from (relative to the finding; details keys are the finding's own field names):
 * - documented fields: indicator.*, connections[].destinationIp and sourceIp, access
 *   (caller IP, principal, subject, delegation chain), iamBindings[].member, process and
 *   file hashes, IOCs inside process arguments;
 * - sourceProperties, nested or flattened (`properties_externalMembers_0`): Event Threat
 *   Detection keeps external members, binding deltas, principals and attacker IPs there;
 * - the verbatim details (exfiltration, kubernetes, dataAccessEvents, process libraries…).
 * Resources an attacker touched (affected resources, exfiltration sources and targets) are
 * listed beside the IOCs: ferret has no IOC type for them, and lookups do not apply.
 *
 * Not read: sections that describe the organisation rather than the event (contacts,
 * external ticket systems, mute and mark bookkeeping, compliance mappings, CVE references,
 * SCC's own console and MITRE links) and prose written by Google (Recommendation,
 * Explanation, ExceptionInstructions, description, nextSteps), whose links and example
 * domains ("e.g. gmail.com addresses") are not indicators.
 */

export interface IocOccurrence {
  type: IocType;
  value: string;
  path: string;
  context: string;
}

export interface ResourceOccurrence {
  name: string;
  path: string;
}

export interface FindingIocReport {
  /** One IOC per type and value, first occurrence's context and path. */
  iocs: Ioc[];
  /** Every occurrence, in reading order. */
  occurrences: IocOccurrence[];
  resources: ResourceOccurrence[];
}

/** Sections (by leaf or ancestor key) that are bookkeeping, not evidence. */
const NOT_EVIDENCE = new Set([
  "contacts",
  "externalSystems",
  "muteInitiator",
  "muteInfo",
  "securityMarks",
  "compliances",
  "complianceDetails",
  "compliance_standards",
  "propertyDataTypes",
  "references",
  "cwes",
  "contextUris",
  "externalUri",
  "ResourcePath",
]);

/** Google-written prose: its links and example domains are not indicators. */
const PROSE = new Set([
  "Recommendation",
  "Explanation",
  "ExceptionInstructions",
  "description",
  "nextSteps",
  "explanation",
]);

const MEMBER_PREFIX = /^(?:deleted:)?(?:user|serviceAccount|group|domain|principal|principalSet):/i;
const EMAIL = /^[^\s@]+@([^\s@]+)$/;
const HASH = /^(?:[a-f0-9]{32}|[a-f0-9]{40}|[a-f0-9]{64})$/i;
const URL_RE = /^[a-z][a-z0-9+.-]{1,15}:\/\/\S+$/i;
const RESOURCE = /^\/\/[a-z0-9.-]+\.googleapis\.com\/\S+$/i;
// Account names: "bob.schmidt" is a user on a VM, not the domain it spells (.schmidt is a TLD).
const ACCOUNT_KEY = /^(?:user_?name|user|login|account|account_?name|local_?user)$/i;
// A file system path: "/tmp/.x/start.sh" names a file, not the domain start.sh.
const FILE_PATH = /^(?:\/|[A-Za-z]:\\)\S*$/;

class Collector {
  readonly occurrences: IocOccurrence[] = [];
  readonly resources: ResourceOccurrence[] = [];
  add(type: IocType, value: string | undefined, path: string, context: string): void {
    if (!value) return;
    this.occurrences.push({ type, value, path, context });
  }
  resource(name: string, path: string): void {
    if (!this.resources.some((r) => r.name === name)) this.resources.push({ name, path });
  }
}

/** A whole value that is itself an indicator; free text is handled by `text`. */
function classifyWhole(raw: string): { type: IocType; value: string } | undefined {
  const value = raw.trim();
  if (!value || value.length > 2_048) return undefined;
  if (isIP(value)) return value === "0.0.0.0" || value === "::" ? undefined : { type: "ip", value };
  const member = value.replace(MEMBER_PREFIX, "");
  const email = EMAIL.exec(member);
  if (email?.[1] && isDomainName(email[1])) return { type: "principal", value: member };
  if (HASH.test(value)) return { type: "hash", value: value.toLowerCase() };
  if (URL_RE.test(value)) return { type: "url", value };
  if (isDomainName(value) && !/[\s/:@]/.test(value)) return { type: "domain", value: normalizeHost(value) };
  return undefined;
}

function lastKey(path: string): string {
  const m = /(?:\.|\[")?([^.[\]"]+)"?\]?$/.exec(path.replace(/\[\d+\]$/g, ""));
  return m?.[1] ?? path;
}

/** Walks free-form JSON (sourceProperties, details); iterative so depth cannot overflow. */
function walk(root: JsonValue, rootPath: string, label: string, out: Collector): void {
  const stack: { value: JsonValue; path: string; key: string }[] = [{ value: root, path: rootPath, key: "" }];
  while (stack.length > 0) {
    const { value, path, key } = stack.pop() as { value: JsonValue; path: string; key: string };
    if (NOT_EVIDENCE.has(key) || PROSE.has(key)) continue;
    if (typeof value === "string") {
      if (RESOURCE.test(value.trim())) {
        out.resource(value.trim(), path);
        continue;
      }
      const whole = classifyWhole(value);
      if (ACCOUNT_KEY.test(key) && whole?.type !== "principal" && whole?.type !== "ip") continue;
      if (whole) {
        out.add(whole.type, whole.value, path, `${lastKey(path)} (${label})`);
        continue;
      }
      if (FILE_PATH.test(value.trim())) continue;
      for (const ioc of extractIocs(value))
        out.add(ioc.type, ioc.value, path, `in ${lastKey(path)} (${label})`);
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    const entries: [string | number, JsonValue][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    // Pushed in reverse so the stack pops them in document order.
    for (const [k, v] of entries.reverse())
      stack.push({ value: v, path: childPath(path, k), key: typeof k === "number" ? key : k });
  }
}

function member(value: string | undefined): string | undefined {
  return value?.replace(MEMBER_PREFIX, "");
}

/** Reads every IOC of a normalized finding; see the module comment for where it looks. */
export function findingIocOccurrences(f: Finding): FindingIocReport {
  const out = new Collector();
  f.indicators.ipAddresses.forEach((v, i) => {
    out.add("ip", v, `indicator.ipAddresses[${i}]`, "SCC indicator");
  });
  f.indicators.domains.forEach((v, i) => {
    out.add("domain", normalizeHost(v), `indicator.domains[${i}]`, "SCC indicator");
  });
  f.indicators.uris.forEach((v, i) => {
    out.add("url", v, `indicator.uris[${i}]`, "SCC indicator");
  });
  for (const hash of f.indicators.hashes) {
    const p = f.processes.findIndex((x) => x.sha256 === hash);
    const file = f.files.findIndex((x) => x.sha256 === hash);
    const path =
      p >= 0
        ? `processes[${p}].binary.sha256`
        : file >= 0
          ? `files[${file}].sha256`
          : "processes[].script.sha256";
    out.add("hash", hash, path, "process or file hash");
  }
  f.connections.forEach((c, i) => {
    if (c.destinationIp && isIP(c.destinationIp))
      out.add(
        "ip",
        c.destinationIp,
        `connections[${i}].destinationIp`,
        `connection destination port ${c.destinationPort ?? "?"}`,
      );
  });
  // Audit logs redact some callers to "gce-internal-ip" (or "private"); only a real address is an IP IOC.
  if (f.access?.callerIp && isIP(f.access.callerIp))
    out.add("ip", f.access.callerIp, "access.callerIp", "caller IP");
  out.add("principal", f.access?.principalEmail, "access.principalEmail", "acting principal");
  const subject = member(f.access?.principalSubject);
  if (subject && EMAIL.test(subject))
    out.add("principal", subject, "access.principalSubject", "acting principal");
  f.access?.delegationChain?.forEach((d, i) => {
    out.add("principal", member(d), `access.serviceAccountDelegationInfo[${i}]`, "delegating principal");
  });
  f.iamBindings.forEach((b, i) => {
    out.add(
      "principal",
      member(b.member),
      `iamBindings[${i}].member`,
      `IAM ${b.action ?? ""} ${b.role ?? ""}`.trim(),
    );
  });
  f.connections.forEach((c, i) => {
    // The source of a connection is usually the reporting VM itself; a public one is an inbound peer.
    if (c.sourceIp && isIP(c.sourceIp) === 4 && !isPrivateOrReservedIpv4(c.sourceIp))
      out.add("ip", c.sourceIp, `connections[${i}].sourceIp`, "connection source");
  });
  f.processes.forEach((p, i) => {
    for (const ioc of extractIocs(p.args.join(" "))) out.add(ioc.type, ioc.value, `processes[${i}].args`, "");
  });
  walk(f.sourceProperties, "sourceProperties", "sourceProperties", out);
  for (const [key, value] of Object.entries(f.details ?? {})) {
    if (key.startsWith("resource.") || NOT_EVIDENCE.has(key) || PROSE.has(key)) continue;
    walk(value, key, key, out);
  }
  if (f.resource.name) out.resource(f.resource.name, "resource.name");

  const seen = new Map<string, Ioc>();
  for (const o of out.occurrences) {
    const key = iocKey(o);
    if (seen.has(key)) continue;
    // Process-argument IOCs have never carried a context; the path says where they were.
    seen.set(
      key,
      o.context
        ? { type: o.type, value: o.value, context: o.context, path: o.path }
        : { type: o.type, value: o.value, path: o.path },
    );
  }
  return { iocs: [...seen.values()], occurrences: out.occurrences, resources: out.resources };
}

import { isIP } from "node:net";
import { normalizeHost } from "./domain-grammar.js";
import type { Finding } from "./finding.js";
import { type Ioc, type IocType, iocKey, scanText } from "./ioc.js";
import {
  type IocRuleId,
  isGoogleServiceDomain,
  isInternalAddress,
  isMaskedValue,
  isReferenceLink,
  isResourceUri,
} from "./ioc-rules.js";
import { EMAIL, MEMBER_PREFIX, serviceAccountKeyOwner, type WalkHit, walkIocs } from "./ioc-walk.js";

/**
 * Every IOC a finding carries, from every place one lives, each with the JSON path it was
 * read from (relative to the finding; details keys are the finding's own field names):
 * - documented fields: indicator.*, connections[].destinationIp and sourceIp, access
 *   (caller IP, principal, subject, delegation chain, the owner of the key used),
 *   iamBindings[].member, process and file hashes, IOCs inside process arguments, and the
 *   owner of a service-account key the resource names (SHA's key findings name it nowhere else);
 * - sourceProperties, nested or flattened (`properties_externalMembers_0`): Event Threat
 *   Detection keeps external members, binding deltas, principals and attacker IPs there;
 * - the verbatim details (exfiltration, kubernetes bindings, dataAccessEvents…).
 * Values the rules of ioc-rules.ts make context are listed apart with the rule, private
 * addresses as internal endpoints (never sent to intel), resources an attacker touched as
 * resources.
 *
 * Not read at all: sections that describe the organisation rather than the event (contacts,
 * external ticket systems, security marks, compliance mappings, CVE references, SCC's own
 * console and MITRE links) and prose written by Google (Recommendation, Explanation,
 * ExceptionInstructions, description, nextSteps), whose links and example domains ("e.g.
 * gmail.com addresses") are not indicators.
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

/** A value that looks like an IOC and is not one, with the rule that says why. */
export interface ExcludedOccurrence {
  type: IocType;
  value: string;
  path: string;
  rule: IocRuleId;
}

export interface FindingIocReport {
  /** One IOC per type and value, first occurrence's context and path. */
  iocs: Ioc[];
  /** Every occurrence, in reading order. */
  occurrences: IocOccurrence[];
  resources: ResourceOccurrence[];
  /** Private addresses: internal endpoints, evidence for log queries, never sent to intel. */
  internalEndpoints: { value: string; path: string }[];
  /** IOC-shaped values that are context, each with its rule (one per value and rule). */
  excluded: ExcludedOccurrence[];
}

/** Sections (by leaf or ancestor key) that are bookkeeping, not evidence. */
const NOT_EVIDENCE = new Set([
  "contacts",
  "externalSystems",
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

const skipSection = (key: string) => NOT_EVIDENCE.has(key) || PROSE.has(key);

class Collector {
  readonly occurrences: IocOccurrence[] = [];
  readonly resources: ResourceOccurrence[] = [];
  readonly internal: { value: string; path: string }[] = [];
  readonly excluded: ExcludedOccurrence[] = [];
  add(type: IocType, value: string | undefined, path: string, context: string): void {
    if (!value) return;
    this.occurrences.push({ type, value, path, context });
  }
  resource(name: string, path: string): void {
    if (!this.resources.some((r) => r.name === name)) this.resources.push({ name, path });
  }
  internalEndpoint(value: string, path: string): void {
    if (!this.internal.some((i) => i.value === value)) this.internal.push({ value, path });
  }
  exclude(type: IocType, value: string, path: string, rule: IocRuleId): void {
    if (!this.excluded.some((e) => e.type === type && e.value === value && e.rule === rule))
      this.excluded.push({ type, value, path, rule });
  }
  /** An address from a documented field: an IOC, an internal endpoint, or masked. */
  address(value: string | undefined, path: string, context: string): void {
    if (!value) return;
    if (isMaskedValue(value)) this.exclude("ip", value, path, "masked-value");
    else if (!isIP(value) || value === "0.0.0.0") return;
    else if (isInternalAddress(value)) this.internalEndpoint(value, path);
    else this.add("ip", value, path, context);
  }
  hits(hits: readonly WalkHit[], label: string): void {
    for (const h of hits) {
      if (h.kind === "resource") this.resource(h.value, h.path);
      else if (h.kind === "internal") this.internalEndpoint(h.value, h.path);
      else if (h.kind === "excluded" && h.type && h.rule) this.exclude(h.type, h.value, h.path, h.rule);
      else if (h.kind === "ioc" && h.type) this.add(h.type, h.value, h.path, `${h.key} (${label})`);
    }
  }
}

function member(value: string | undefined): string | undefined {
  return value?.replace(MEMBER_PREFIX, "");
}

/** Reads every IOC of a normalized finding; see the module comment for where it looks. */
export function findingIocOccurrences(f: Finding): FindingIocReport {
  const out = new Collector();
  f.indicators.ipAddresses.forEach((v, i) => {
    out.address(v, `indicator.ipAddresses[${i}]`, "SCC indicator");
  });
  f.indicators.domains.forEach((v, i) => {
    const host = normalizeHost(v);
    const path = `indicator.domains[${i}]`;
    if (isMaskedValue(host)) out.exclude("domain", host, path, "masked-value");
    else if (isGoogleServiceDomain(host)) out.exclude("domain", host, path, "google-service-domain");
    else out.add("domain", host, path, "SCC indicator");
  });
  f.indicators.uris.forEach((v, i) => {
    const path = `indicator.uris[${i}]`;
    if (isResourceUri(v)) out.resource(v, path);
    else if (isReferenceLink(v)) out.exclude("url", v, path, "reference-link");
    else out.add("url", v, path, "SCC indicator");
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
    out.address(
      c.destinationIp,
      `connections[${i}].destinationIp`,
      `connection destination port ${c.destinationPort ?? "?"}`,
    );
  });
  // Audit logs redact some callers to "gce-internal-ip" (or "private"); only a real address is an IP IOC.
  out.address(f.access?.callerIp, "access.callerIp", "caller IP");
  out.add("principal", f.access?.principalEmail, "access.principalEmail", "acting principal");
  const subject = member(f.access?.principalSubject);
  if (subject && EMAIL.test(subject))
    out.add("principal", subject, "access.principalSubject", "acting principal");
  f.access?.delegationChain?.forEach((d, i) => {
    out.add("principal", member(d), `access.serviceAccountDelegationInfo[${i}]`, "delegating principal");
  });
  const keyOwner = serviceAccountKeyOwner(f.access?.serviceAccountKeyName ?? "");
  out.add("principal", keyOwner, "access.serviceAccountKeyName", "owner of the key used");
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
    out.address(c.sourceIp, `connections[${i}].sourceIp`, "connection source");
  });
  f.processes.forEach((p, i) => {
    for (const c of scanText(p.args.join(" "))) {
      const path = `processes[${i}].args`;
      if (c.excludedBy === "private-address") out.internalEndpoint(c.value, path);
      else if (c.excludedBy) out.exclude(c.type, c.value, path, c.excludedBy);
      else out.add(c.type, c.value, path, "");
    }
  });
  // A key finding (USER_MANAGED_SERVICE_ACCOUNT_KEY, SERVICE_ACCOUNT_KEY_NOT_ROTATED…) names
  // the flagged key's owner only in the resource's name or display name.
  for (const [value, path] of [
    [f.resource.displayName, "resource.displayName"],
    [f.resource.name, "resource.name"],
  ] as const) {
    const owner = serviceAccountKeyOwner(value ?? "");
    if (owner) out.add("principal", owner, path, "owner of the flagged service-account key");
  }
  out.hits(
    walkIocs(f.sourceProperties, "sourceProperties", skipSection, ["sourceProperties"]),
    "sourceProperties",
  );
  for (const [key, value] of Object.entries(f.details ?? {})) {
    if (key.startsWith("resource.") || key.startsWith("notification.") || skipSection(key)) continue;
    out.hits(walkIocs(value, key, skipSection, [key]), key);
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
  const iocs = [...seen.values()];
  // A value kept as an IOC somewhere is not listed as excluded elsewhere.
  const kept = new Set(
    iocs.map((i) => `${i.type === "email" ? "principal" : i.type}:${i.value.toLowerCase()}`),
  );
  const excluded = out.excluded.filter(
    (e) => !kept.has(`${e.type === "email" ? "principal" : e.type}:${e.value.toLowerCase()}`),
  );
  return {
    iocs,
    occurrences: out.occurrences,
    resources: out.resources,
    internalEndpoints: out.internal,
    excluded,
  };
}

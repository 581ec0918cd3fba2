import { type Ioc, type IocType, iocKey, scanText } from "../ioc.js";
import { IOC_RULES, type IocRuleId, isResourceUri, isSystemLibraryPath } from "../ioc-rules.js";
import type { JsonValue } from "../json.js";
import { childPath } from "../json-cap.js";
import type { Finding } from "./finding.js";
import {
  type FieldRow,
  findingFieldRow,
  keyDeclaredKind,
  keyWords,
  SOURCE_PROPERTY_LAYOUTS,
} from "./finding-field-meaning.js";
import {
  accountOf,
  asIndicator,
  type GrammarVerdict,
  isResourceName,
  serviceAccountKeyOwner,
  shapeOf,
} from "./indicator-grammar.js";

/**
 * A finding's indicators, read by what each field means (finding-field-meaning.ts, cited to
 * Google's Finding reference): the indicator fields (indicator.*, access.callerIp,
 * connections[].destinationIp and sourceIp, process, library, script and file hashes, command
 * lines), the actors (the caller, its delegation chain, the owner of the key used, readers of
 * data) and the targets (granted members). `sourceProperties` is read by the detectors'
 * documented layouts and, elsewhere, only where a key's own name declares a kind of indicator
 * (`destIp`, `domain`, `externalMembers`). A declared value must also be written in its kind's
 * grammar (indicator-grammar.ts). Every other indicator-shaped value is context, listed with its
 * path and the reason; private addresses are internal endpoints; resource names are resources.
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

/** A value that looks like an IOC and is not one, with the reason (the field's meaning or a rule). */
export interface ExcludedOccurrence {
  type: IocType;
  value: string;
  path: string;
  reason: string;
  /** The free-text rule that made it context, when one did (ioc-rules.ts). */
  rule?: IocRuleId;
}

export interface FindingIocReport {
  /** One IOC per type and value, first occurrence's context and path. */
  iocs: Ioc[];
  /** Every occurrence, in reading order. */
  occurrences: IocOccurrence[];
  resources: ResourceOccurrence[];
  /** Private addresses: internal endpoints, evidence for log queries, never sent to intel. */
  internalEndpoints: { value: string; path: string }[];
  /** IOC-shaped values that are context, each with its reason (one per value and reason). */
  excluded: ExcludedOccurrence[];
}

class Collector {
  readonly occurrences: IocOccurrence[] = [];
  readonly resources: ResourceOccurrence[] = [];
  readonly internal: { value: string; path: string }[] = [];
  readonly excluded: ExcludedOccurrence[] = [];
  add(type: IocType, value: string | undefined, path: string, context: string): void {
    if (value) this.occurrences.push({ type, value, path, context });
  }
  resource(name: string, path: string): void {
    if (!this.resources.some((r) => r.name === name)) this.resources.push({ name, path });
  }
  internalEndpoint(value: string, path: string): void {
    if (!this.internal.some((i) => i.value === value)) this.internal.push({ value, path });
  }
  exclude(e: ExcludedOccurrence): void {
    if (!this.excluded.some((x) => x.type === e.type && x.value === e.value && x.reason === e.reason))
      this.excluded.push(e);
  }
  verdict(v: GrammarVerdict, path: string, context: string): void {
    if (v.is === "indicator") this.add(v.type, v.value, path, context);
    else if (v.is === "internal") this.internalEndpoint(v.value, path);
    else this.exclude({ type: v.type, value: v.value, path, reason: v.reason });
  }
  /** Free text a field declares may hold indicators (a command line): scanned by the text rules. */
  text(value: string, path: string, context: string): void {
    for (const c of scanText(value)) {
      if (c.excludedBy === "private-address") this.internalEndpoint(c.value, path);
      else if (c.excludedBy)
        this.exclude({
          type: c.type,
          value: c.value,
          path,
          reason: IOC_RULES[c.excludedBy],
          rule: c.excludedBy,
        });
      else this.add(c.type === "email" ? "principal" : c.type, c.value, path, context);
    }
  }
}

// ---- reading a subtree by the meaning of each field ----

interface Leaf {
  value: string;
  path: string;
  keys: readonly string[];
  parent?: Readonly<Record<string, JsonValue>>;
}

function* leaves(root: JsonValue, rootPath: string, rootKeys: readonly string[]): Generator<Leaf> {
  const stack: {
    value: JsonValue;
    path: string;
    keys: readonly string[];
    parent?: Record<string, JsonValue>;
  }[] = [{ value: root, path: rootPath, keys: rootKeys }];
  while (stack.length > 0) {
    const { value, path, keys, parent } = stack.pop() as (typeof stack)[number];
    if (typeof value === "string") {
      yield parent ? { value, path, keys, parent } : { value, path, keys };
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    const holder = Array.isArray(value) ? parent : (value as Record<string, JsonValue>);
    const entries: [string | number, JsonValue][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    // Pushed in reverse so the stack pops them in document order.
    for (const [k, v] of entries.reverse())
      stack.push({
        value: v,
        path: childPath(path, k),
        keys: typeof k === "number" ? keys : [...keys, k],
        ...(holder ? { parent: holder } : {}),
      });
  }
}

/**
 * The values one string holds. A key whose last word is plural (`abuse_target_ips`, `domains`,
 * `memberEmails`) declares several values; a string under it is that list serialized, its items
 * separated by commas, semicolons or white space, and each is read by its kind's grammar. Under a
 * singular key the string is one value, so text around an address still fails the grammar.
 */
function itemsOf(value: string, keys: readonly string[]): string[] {
  const last = propertyKeys(keys)
    .filter((k) => !/^\d+$/.test(k))
    .flatMap(keyWords)
    .at(-1);
  if (!last || !/[^s]s$/.test(last)) return [value];
  const items = value.split(/[\s,;]+/).filter((item) => item.length > 0);
  return items.length > 0 ? items : [value];
}

/** A key that names the address the actor acted from (`callerIp`, as audit logs name it). */
function namesTheActor(keys: readonly string[]): boolean {
  const words = propertyKeys(keys).flatMap(keyWords);
  return words.at(-2) === "caller" || words.at(-1) === "callerip";
}

/** One leaf of a field whose meaning is `row` (context when the table names none). */
function readLeaf(out: Collector, leaf: Leaf, row: FieldRow | undefined, label: string): void {
  const value = leaf.value.trim();
  if (!value) return;
  if (isResourceName(value)) {
    out.resource(value, leaf.path);
    return;
  }
  const context = `${leaf.keys.at(-1) ?? label} (${label})`;
  if (row?.kind && (row.meaning === "indicator" || row.meaning === "actor" || row.meaning === "target")) {
    if (row.kind === "text") out.text(value, leaf.path, context);
    else if (
      row.kind === "hash" &&
      typeof leaf.parent?.path === "string" &&
      isSystemLibraryPath(leaf.parent.path) &&
      leaf.keys.includes("libraries")
    )
      // The operating system's own library (libc…): its digest names the OS, not the attacker.
      out.exclude({
        type: "hash",
        value: value.toLowerCase(),
        path: leaf.path,
        reason: "the digest of a library the OS ships",
      });
    else
      for (const item of itemsOf(value, leaf.keys))
        out.verdict(asIndicator(row.kind, item, namesTheActor(leaf.keys)), leaf.path, context);
    return;
  }
  const shape = shapeOf(value);
  if (!shape) return;
  if (row?.meaning === "resource" && shape === "url" && isResourceUri(value)) {
    out.resource(value, leaf.path);
    return;
  }
  const type: IocType = shape;
  const shown =
    type === "principal" ? (accountOf(value) ?? value) : type === "hash" ? value.toLowerCase() : value;
  out.exclude({
    type,
    value: shown,
    path: leaf.path,
    reason: row ? `${row.meaning}: ${row.says}` : `context: ${label} declares no indicator here`,
  });
}

/** A sourceProperties key path, flattened keys (`properties_ip_0`) split into their parts. */
function propertyKeys(keys: readonly string[]): string[] {
  return keys.flatMap((k) => (SOURCE_PROPERTY_LAYOUTS[k] || !k.includes("_") ? [k] : k.split("_")));
}

/** The meaning of a sourceProperties value: the outermost key a detector layout names, or what the key declares. */
export function sourcePropertyRow(keys: readonly string[]): FieldRow | undefined {
  const parts = propertyKeys(keys);
  for (const k of parts) {
    const laid = SOURCE_PROPERTY_LAYOUTS[k];
    if (laid) return laid;
  }
  const key = parts.filter((k) => !/^\d+$/.test(k)).at(-1);
  const kind = key ? keyDeclaredKind(key) : undefined;
  if (kind === "reference") return { meaning: "reference", says: `the key "${key}" names a reference` };
  return kind && key ? { meaning: "indicator", kind, says: `the key "${key}" declares ${kind}` } : undefined;
}

// ---- the typed fields ----

function member(value: string | undefined): string | undefined {
  return value ? accountOf(value) : undefined;
}

function readTyped(f: Finding, out: Collector): void {
  f.indicators.ipAddresses.forEach((v, i) => {
    out.verdict(asIndicator("ip", v, true), `indicator.ipAddresses[${i}]`, "SCC indicator");
  });
  f.indicators.domains.forEach((v, i) => {
    out.verdict(asIndicator("domain", v), `indicator.domains[${i}]`, "SCC indicator");
  });
  f.indicators.uris.forEach((v, i) => {
    const path = `indicator.uris[${i}]`;
    if (isResourceUri(v)) out.resource(v, path);
    else out.verdict(asIndicator("url", v), path, "SCC indicator");
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
    out.verdict(asIndicator("hash", hash), path, "process or file hash");
  }
  f.connections.forEach((c, i) => {
    if (c.destinationIp)
      out.verdict(
        asIndicator("ip", c.destinationIp),
        `connections[${i}].destinationIp`,
        `connection destination port ${c.destinationPort ?? "?"}`,
      );
  });
  // Audit logs redact some callers to "gce-internal-ip" (or "private"): not an address.
  if (f.access?.callerIp)
    out.verdict(asIndicator("ip", f.access.callerIp, true), "access.callerIp", "caller IP");
  out.add(
    "principal",
    member(f.access?.principalEmail) ?? f.access?.principalEmail,
    "access.principalEmail",
    "acting principal",
  );
  out.add("principal", member(f.access?.principalSubject), "access.principalSubject", "acting principal");
  f.access?.delegationChain?.forEach((d, i) => {
    out.add("principal", member(d) ?? d, `access.serviceAccountDelegationInfo[${i}]`, "delegating principal");
  });
  out.add(
    "principal",
    serviceAccountKeyOwner(f.access?.serviceAccountKeyName ?? ""),
    "access.serviceAccountKeyName",
    "owner of the key used",
  );
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
    if (c.sourceIp)
      out.verdict(asIndicator("ip", c.sourceIp), `connections[${i}].sourceIp`, "connection source");
  });
  f.processes.forEach((p, i) => {
    out.text(p.args.join(" "), `processes[${i}].args`, "");
  });
  // A key finding (USER_MANAGED_SERVICE_ACCOUNT_KEY, SERVICE_ACCOUNT_KEY_NOT_ROTATED…) names
  // the flagged key's owner only in the resource's name or display name.
  for (const [value, path] of [
    [f.resource.displayName, "resource.displayName"],
    [f.resource.name, "resource.name"],
  ] as const) {
    out.add(
      "principal",
      serviceAccountKeyOwner(value ?? ""),
      path,
      "owner of the flagged service-account key",
    );
  }
}

/** Reads every IOC of a normalized finding by the meaning of its fields; see the module comment. */
export function findingIocOccurrences(f: Finding): FindingIocReport {
  const out = new Collector();
  readTyped(f, out);
  for (const leaf of leaves(f.sourceProperties, "sourceProperties", []))
    readLeaf(out, leaf, sourcePropertyRow(leaf.keys), "sourceProperties");
  for (const [key, value] of Object.entries(f.details ?? {})) {
    if (key.startsWith("resource.") || key.startsWith("notification.")) continue;
    for (const leaf of leaves(value, key, [key])) readLeaf(out, leaf, findingFieldRow(leaf.path), key);
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

import { isIP } from "node:net";
import { isDomainName, normalizeHost } from "./domain-grammar.js";
import type { IocType } from "./ioc.js";
import { scanText } from "./ioc.js";
import {
  contextRuleFor,
  type IocRuleId,
  isGoogleServiceDomain,
  isInternalAddress,
  isMaskedValue,
  isReferenceLink,
  isResourceUri,
} from "./ioc-rules.js";
import type { JsonValue } from "./json.js";
import { childPath } from "./json-cap.js";

/**
 * Walks free-form JSON (a finding's sourceProperties and verbatim fields, a log row) and types
 * every IOC-shaped value by the rules of ioc-rules.ts, keeping the JSON path of each. Values
 * the rules make context are reported with the rule, so a reader can see why they are not
 * IOCs; private addresses are reported as internal endpoints; resource names as resources.
 */

export interface WalkHit {
  kind: "ioc" | "excluded" | "internal" | "resource";
  type?: IocType;
  value: string;
  path: string;
  /** The leaf's key ("callerIp"), for context labels. */
  key: string;
  rule?: IocRuleId;
}

export const MEMBER_PREFIX = /^(?:deleted:)?(?:user|serviceAccount|group|domain|principal|principalSet):/i;
export const EMAIL = /^[^\s@/]+@([^\s@/]+)$/;
const HASH = /^(?:[a-f0-9]{32}|[a-f0-9]{40}|[a-f0-9]{64})$/i;
const URL_WHOLE = /^[a-z][a-z0-9+.-]{1,15}:\/\/\S+$/i;
/** A full resource name (//service.googleapis.com/…). */
export const RESOURCE_NAME = /^\/\/[a-z0-9.-]+\.googleapis\.com\/\S+$/i;
/** A service-account key's resource path names the account that owns the key. */
const SA_KEY_OWNER = /serviceAccounts\/([^/\s@]+@[^/\s]+\.iam\.gserviceaccount\.com)\/keys\//i;
// Account names: "bob.schmidt" is a user on a VM, not the domain it spells (.schmidt is a TLD).
const ACCOUNT_KEY = /^(?:user_?name|user|login|account|account_?name|local_?user)$/i;
// A file system path: "/tmp/.x/start.sh" names a file, not the domain start.sh.
const FILE_PATH = /^(?:\/|[A-Za-z]:\\)\S*$/;

/** The owner of a service-account key named in a resource path, if the path is one. */
export function serviceAccountKeyOwner(value: string): string | undefined {
  return SA_KEY_OWNER.exec(value)?.[1]?.toLowerCase();
}

/** A whole value that is itself one indicator (or one piece of context); free text is scanned. */
export function classifyWhole(
  raw: string,
): { type: IocType; value: string; excludedBy?: IocRuleId; internal?: boolean } | undefined {
  const value = raw.trim();
  if (!value || value.length > 2_048) return undefined;
  if (isIP(value)) {
    if (value === "0.0.0.0" || value === "::") return undefined;
    return isInternalAddress(value) ? { type: "ip", value, internal: true } : { type: "ip", value };
  }
  if (isMaskedValue(value)) return { type: "ip", value, excludedBy: "masked-value" };
  const member = value.replace(MEMBER_PREFIX, "");
  const email = EMAIL.exec(member);
  if (email?.[1] && isDomainName(email[1])) return { type: "principal", value: member };
  if (HASH.test(value)) return { type: "hash", value: value.toLowerCase() };
  if (URL_WHOLE.test(value)) {
    if (isResourceUri(value)) return { type: "url", value, excludedBy: "non-network-uri" };
    if (isReferenceLink(value)) return { type: "url", value, excludedBy: "reference-link" };
    return { type: "url", value };
  }
  if (isDomainName(value) && !/[\s/:@]/.test(value)) {
    const host = normalizeHost(value);
    return isGoogleServiceDomain(host)
      ? { type: "domain", value: host, excludedBy: "google-service-domain" }
      : { type: "domain", value: host };
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface Frame {
  value: JsonValue;
  path: string;
  keys: readonly string[];
  parent?: Record<string, JsonValue>;
}

/**
 * Every hit under `root`, in document order. `skip(key)` names sections not read at all
 * (bookkeeping and Google-written prose, decided by the caller).
 */
export function walkIocs(
  root: JsonValue,
  rootPath: string,
  skip: (key: string) => boolean,
  rootKeys: readonly string[] = [],
): WalkHit[] {
  const hits: WalkHit[] = [];
  const stack: Frame[] = [{ value: root, path: rootPath, keys: rootKeys }];
  while (stack.length > 0) {
    const { value, path, keys, parent } = stack.pop() as Frame;
    const key = keys.at(-1) ?? "";
    if (skip(key)) continue;
    if (typeof value === "string") {
      leaf(value, path, keys, parent, hits);
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    const entries: [string | number, JsonValue][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    const holder = isRecord(value) ? value : parent;
    // Pushed in reverse so the stack pops them in document order.
    for (const [k, v] of entries.reverse())
      stack.push({
        value: v,
        path: childPath(path, k),
        keys: typeof k === "number" ? keys : [...keys, k],
        ...(holder ? { parent: holder } : {}),
      });
  }
  return hits;
}

function leaf(
  raw: string,
  path: string,
  keys: readonly string[],
  parent: Record<string, JsonValue> | undefined,
  hits: WalkHit[],
): void {
  const key = keys.at(-1) ?? "";
  const value = raw.trim();
  const owner = serviceAccountKeyOwner(value);
  if (owner) hits.push({ kind: "ioc", type: "principal", value: owner, path, key });
  // A resource name, bare or as a principal:// / principalSet:// member (a workload identity pool).
  if (RESOURCE_NAME.test(value) || RESOURCE_NAME.test(value.replace(/^principal(?:Set)?:/i, ""))) {
    hits.push({ kind: "resource", value, path, key });
    return;
  }
  const rule = contextRuleFor(keys, parent);
  const whole = classifyWhole(value);
  if (ACCOUNT_KEY.test(key) && whole?.type !== "principal" && whole?.type !== "ip") return;
  if (whole) {
    if (rule) hits.push({ kind: "excluded", type: whole.type, value: whole.value, path, key, rule });
    else if (whole.excludedBy === "non-network-uri")
      hits.push({ kind: "resource", value: whole.value, path, key });
    else if (whole.excludedBy)
      hits.push({
        kind: "excluded",
        type: whole.type,
        value: whole.value,
        path,
        key,
        rule: whole.excludedBy,
      });
    else if (whole.internal) hits.push({ kind: "internal", type: "ip", value: whole.value, path, key });
    else hits.push({ kind: "ioc", type: whole.type, value: whole.value, path, key });
    return;
  }
  if (FILE_PATH.test(value)) return;
  for (const c of scanText(value)) {
    if (owner && c.type === "email" && c.value.toLowerCase() === owner) continue;
    // 0.0.0.0 is "any address" (0.0.0.0/0 in a firewall rule), not an endpoint.
    if (c.type === "ip" && c.value === "0.0.0.0") continue;
    const why = rule ?? c.excludedBy;
    if (why === "private-address") hits.push({ kind: "internal", type: "ip", value: c.value, path, key });
    else if (why) hits.push({ kind: "excluded", type: c.type, value: c.value, path, key, rule: why });
    else hits.push({ kind: "ioc", type: c.type, value: c.value, path, key });
  }
}

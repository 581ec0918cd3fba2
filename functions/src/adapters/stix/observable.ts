import { BlockList, isIPv4, isIPv6 } from "node:net";
import type { IocType } from "../../domain/ioc.js";
import type { Comparison, PatternNode } from "./pattern.js";

/**
 * What a lookup asks about, normalized the way feeds write it, and how a pattern's
 * comparisons are judged against it. A lookup is one observable, so an AND across two
 * different observables (or two observations) can never be satisfied by it.
 */
export interface Observable {
  type: IocType;
  /** Normalized value; see normalizeObservable. */
  value: string;
}

export function normalizeIp(value: string): string {
  const v = value.trim();
  if (isIPv4(v))
    return v
      .split(".")
      .map((o) => String(Number(o)))
      .join(".");
  if (isIPv6(v)) {
    try {
      return new URL(`http://[${v}]`).hostname.slice(1, -1);
    } catch {
      return v.toLowerCase();
    }
  }
  return v;
}

export function normalizeObservable(type: IocType, raw: string): string {
  const value = raw.trim();
  switch (type) {
    case "ip":
      return normalizeIp(value);
    case "domain":
      return value.toLowerCase().replace(/\.$/, "");
    case "hash":
    case "email":
    case "principal":
      return value.toLowerCase().replace(/^(user|serviceaccount|group):/, "");
    case "url": {
      // Scheme and host are case-insensitive; the path and query are not.
      const m = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/s.exec(value);
      return m ? `${m[1]!.toLowerCase()}${m[2]!.toLowerCase()}${m[3]}` : value;
    }
  }
}

/** Which STIX object paths carry a value of each lookup type. */
const PATHS: Record<IocType, Array<[string, string[] | "hashes"]>> = {
  ip: [
    ["ipv4-addr", ["value"]],
    ["ipv6-addr", ["value"]],
    ["network-traffic", ["dst_ref", "value"]],
    ["network-traffic", ["src_ref", "value"]],
    // MISP's domain-ip object: [domain-name:value = … AND domain-name:resolves_to_refs[*].value = …]
    ["domain-name", ["resolves_to_refs", "*", "value"]],
  ],
  domain: [["domain-name", ["value"]]],
  url: [["url", ["value"]]],
  hash: [
    ["file", "hashes"],
    ["artifact", "hashes"],
  ],
  email: [
    ["email-addr", ["value"]],
    ["user-account", ["user_id"]],
  ],
  principal: [
    ["email-addr", ["value"]],
    ["user-account", ["user_id"]],
    ["user-account", ["account_login"]],
  ],
};

export function comparisonTargets(type: IocType, c: Comparison): boolean {
  return PATHS[type].some(([objectType, path]) => {
    if (objectType !== c.objectType) return false;
    if (path === "hashes") return c.path.length === 2 && c.path[0] === "hashes";
    return path.length === c.path.length && path.every((p, i) => p === c.path[i]);
  });
}

/** `ip` inside `cidr` (IPv4 or IPv6); false for anything that is not an address and a prefix. */
export function inCidr(ip: string, cidr: string): boolean {
  const parsed = parseCidr(cidr);
  if (!parsed) return false;
  const family = isIPv4(ip) ? "ipv4" : isIPv6(ip) ? "ipv6" : undefined;
  if (family !== parsed.family) return false;
  const list = new BlockList();
  list.addSubnet(parsed.network, parsed.prefix, parsed.family);
  return list.check(ip, family);
}

export function parseCidr(
  cidr: string,
): { network: string; prefix: number; family: "ipv4" | "ipv6" } | undefined {
  const [network = "", bitsText, extra] = cidr.trim().split("/");
  if (extra !== undefined) return undefined;
  const family = isIPv4(network) ? "ipv4" : isIPv6(network) ? "ipv6" : undefined;
  if (!family) return undefined;
  const max = family === "ipv4" ? 32 : 128;
  const prefix = bitsText === undefined ? max : Number(bitsText);
  if (!/^\d+$/.test(bitsText ?? String(max)) || prefix > max) return undefined;
  return { network, prefix, family };
}

const MAX_LIKE_WILDCARDS = 8;

function likeMatches(value: string, pattern: string): boolean {
  if ((pattern.match(/[%_]/g) ?? []).length > MAX_LIKE_WILDCARDS) return false;
  const source = pattern
    .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    .replace(/%/g, ".*")
    .replace(/_/g, ".");
  return new RegExp(`^${source}$`, "s").test(value);
}

/**
 * A pattern judged against one looked-up value has three outcomes: the value satisfies it
 * (`match`), contradicts it (`miss`), or the pattern speaks of something the value cannot
 * tell (`unknown`: another property of the object, a negation, an operator not evaluated).
 */
export type Truth = "match" | "miss" | "unknown";

/** Whether `=`/`IN` holds: CIDR values contain the address (STIX allows `ipv4-addr:value = '198.51.100.0/24'`). */
function equals(observable: Observable, value: string): boolean {
  if (observable.type === "ip" && value.includes("/")) return inCidr(observable.value, value);
  return value === observable.value;
}

function comparisonTruth(observable: Observable, c: Comparison): Truth {
  if (!comparisonTargets(observable.type, c)) return "unknown";
  const values = c.values
    .filter((v): v is string => typeof v === "string")
    .map((v) => normalizeObservable(observable.type, v));
  let holds: boolean;
  switch (c.operator) {
    case "=":
    case "!=":
    case "IN":
      holds = values.some((v) => equals(observable, v));
      break;
    case "LIKE":
      holds = values.some((v) => likeMatches(observable.value, v));
      break;
    case "ISSUBSET":
      holds = observable.type === "ip" && values.some((v) => inCidr(observable.value, v));
      break;
    default:
      // MATCHES (a regex from the feed: a ReDoS risk), ISSUPERSET and ordering are not evaluated.
      return "unknown";
  }
  // A negation never proves a match: "not this address" says nothing about the one looked up.
  if (c.negated !== (c.operator === "!=")) return holds ? "miss" : "unknown";
  if (holds) return "match";
  // Hashes of other algorithms describe the same file: MD5 = 'a' AND SHA-1 = 'b' is not
  // contradicted by a SHA-256 lookup. Only a value of the same length (algorithm) can miss.
  if (observable.type === "hash" && !values.some((v) => v.length === observable.value.length))
    return "unknown";
  return "miss";
}

/**
 * One lookup is one observable, so:
 * - OR: any alternative that matches is enough;
 * - AND inside one [ … ] describes one object (MISP exports a file as
 *   `[file:hashes.MD5 = … AND file:hashes.'SHA-1' = … AND file:name = …]`): the value matches
 *   when some comparison it can be judged by holds and none contradicts it; the others
 *   (its name, size, another hash) are facts about the same object it cannot check;
 * - AND / FOLLOWEDBY between observations need every observation, and a single value
 *   cannot be two observations unless it matches each one itself.
 */
export function patternTruth(node: PatternNode, observable: Observable): Truth {
  switch (node.kind) {
    case "comparison":
      return comparisonTruth(observable, node);
    case "or": {
      const truths = node.children.map((child) => patternTruth(child, observable));
      if (truths.includes("match")) return "match";
      return truths.every((t) => t === "miss") ? "miss" : "unknown";
    }
    case "and": {
      const truths = node.children.map((child) => patternTruth(child, observable));
      if (truths.includes("miss")) return "miss";
      return truths.includes("match") ? "match" : "unknown";
    }
    case "all_observations": {
      const truths = node.children.map((child) => patternTruth(child, observable));
      if (truths.includes("miss")) return "miss";
      return truths.every((t) => t === "match") ? "match" : "unknown";
    }
  }
}

export function patternMatches(node: PatternNode, observable: Observable): boolean {
  return patternTruth(node, observable) === "match";
}

/** Exact-value keys a pattern can be found by; patterns with CIDR or LIKE are scanned instead. */
export function exactKeys(type: IocType, c: Comparison): string[] | "scan" {
  if (c.negated || !comparisonTargets(type, c)) return [];
  if (c.operator === "=" || c.operator === "IN") {
    const values = c.values.filter((v): v is string => typeof v === "string");
    if (type === "ip" && values.some((v) => v.includes("/"))) return "scan";
    return values.map((v) => `${type}:${normalizeObservable(type, v)}`);
  }
  return c.operator === "LIKE" || c.operator === "ISSUBSET" ? "scan" : [];
}

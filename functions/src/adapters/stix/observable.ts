import { isIPv4, isIPv6 } from "node:net";
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

function ipv4ToInt(ip: string): number | undefined {
  if (!isIPv4(ip)) return undefined;
  return ip.split(".").reduce((acc, o) => acc * 256 + Number(o), 0);
}

function inCidr(ip: string, cidr: string): boolean {
  const [base = "", bitsText] = cidr.split("/");
  const addr = ipv4ToInt(ip);
  const net = ipv4ToInt(base.trim());
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  if (addr === undefined || net === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32)
    return false;
  const size = 2 ** (32 - bits);
  return Math.floor(addr / size) === Math.floor(net / size);
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

function comparisonMatches(observable: Observable, c: Comparison): boolean {
  if (c.negated || !comparisonTargets(observable.type, c)) return false;
  const values = c.values
    .filter((v): v is string => typeof v === "string")
    .map((v) => normalizeObservable(observable.type, v));
  switch (c.operator) {
    case "=":
    case "IN":
      return values.includes(observable.value);
    case "LIKE":
      return values.some((v) => likeMatches(observable.value, v));
    case "ISSUBSET":
      return observable.type === "ip" && values.some((v) => inCidr(observable.value, v));
    default:
      // MATCHES (regex from the feed: a ReDoS risk), ISSUPERSET, ordering and != are not evaluated.
      return false;
  }
}

export function patternMatches(node: PatternNode, observable: Observable): boolean {
  switch (node.kind) {
    case "comparison":
      return comparisonMatches(observable, node);
    case "or":
      return node.children.some((child) => patternMatches(child, observable));
    case "and":
    case "all_observations":
      return node.children.every((child) => patternMatches(child, observable));
  }
}

/** Exact-value keys a pattern can be found by; patterns with CIDR or LIKE are scanned instead. */
export function exactKeys(type: IocType, c: Comparison): string[] | "scan" {
  if (c.negated || !comparisonTargets(type, c)) return [];
  if (c.operator === "=" || c.operator === "IN") {
    return c.values
      .filter((v): v is string => typeof v === "string")
      .map((v) => `${type}:${normalizeObservable(type, v)}`);
  }
  return c.operator === "LIKE" || c.operator === "ISSUBSET" ? "scan" : [];
}

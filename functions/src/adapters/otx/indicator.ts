import { isIP } from "node:net";
import { InvalidInputError } from "../../domain/errors.js";
import type { IocType } from "../../domain/ioc.js";

/** The OTX indicator sections ferret asks, by the path segment OTX names them with. */
export type OtxSection = "IPv4" | "IPv6" | "domain" | "hostname" | "url" | "file";

export type OtxTarget =
  | { kind: "lookup"; section: OtxSection; value: string }
  /** Not sent to OTX: the reason says why. */
  | { kind: "skip"; reason: string };

const HASH = /^(?:[a-f0-9]{32}|[a-f0-9]{40}|[a-f0-9]{64})$/;
/** Names that only mean something inside one network; sending them out leaks, and OTX knows nothing of them. */
const INTERNAL_SUFFIXES = [".internal", ".local", ".localhost", ".lan", ".corp", ".home.arpa", ".intranet"];

function isInternalIpv4(ip: string): boolean {
  const [a = 0, b = 0] = ip.split(".").map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    a >= 224
  );
}

function isInternalIpv6(ip: string): boolean {
  const lower = ip.toLowerCase();
  const mapped = lower.startsWith("::ffff:") ? lower.slice("::ffff:".length) : undefined;
  if (mapped !== undefined && isIP(mapped) === 4) return isInternalIpv4(mapped);
  return (
    lower === "::1" ||
    lower === "::" ||
    /^f[cd]/.test(lower) || // unique local fc00::/7
    /^fe[89ab]/.test(lower) // link-local fe80::/10
  );
}

/**
 * Chooses the OTX section for an indicator. Private addresses and internal names are
 * never sent: they would tell a third party about the network under investigation and
 * OTX cannot know them. Names with three or more labels go to `hostname` (OTX keeps
 * subdomains apart from registrable domains); the parent domain is a separate lookup.
 */
export function otxTarget(type: IocType, raw: string): OtxTarget {
  const value = raw.trim();
  switch (type) {
    case "ip": {
      const version = isIP(value);
      if (version === 0) throw new InvalidInputError(`"${value.slice(0, 80)}" is not an IP address`);
      if (version === 4 ? isInternalIpv4(value) : isInternalIpv6(value))
        return { kind: "skip", reason: "private or reserved address; not sent to OTX" };
      return { kind: "lookup", section: version === 4 ? "IPv4" : "IPv6", value };
    }
    case "domain": {
      const name = value.toLowerCase().replace(/\.$/, "");
      if (!/^[a-z0-9.-]+$/.test(name) || !name.includes("."))
        throw new InvalidInputError(`"${value.slice(0, 80)}" is not a domain name`);
      if (INTERNAL_SUFFIXES.some((s) => name.endsWith(s)))
        return { kind: "skip", reason: "internal name; not sent to OTX" };
      return { kind: "lookup", section: name.split(".").length >= 3 ? "hostname" : "domain", value: name };
    }
    case "url":
      if (!/^https?:\/\//i.test(value))
        throw new InvalidInputError(`"${value.slice(0, 80)}" is not an http(s) URL`);
      return { kind: "lookup", section: "url", value };
    case "hash": {
      const hash = value.toLowerCase();
      if (!HASH.test(hash)) throw new InvalidInputError("OTX looks up MD5, SHA-1 and SHA-256 hashes only");
      return { kind: "lookup", section: "file", value: hash };
    }
    case "email":
    case "principal":
      return { kind: "skip", reason: `OTX has no lookup for ${type} indicators` };
  }
}

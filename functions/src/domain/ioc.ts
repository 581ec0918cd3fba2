import { z } from "zod";
import { findDomains, isDomainName, normalizeHost } from "./domain-grammar.js";

export const IocTypeSchema = z.enum(["ip", "domain", "url", "hash", "email", "principal"]);
export type IocType = z.infer<typeof IocTypeSchema>;

export const IocSchema = z.object({
  type: IocTypeSchema,
  value: z.string().min(1).max(2048),
  /** Where the IOC was seen or why it matters, in a few words. */
  context: z.string().max(500).optional(),
  /** The JSON path in the finding the IOC was read from, when it came from a finding. */
  path: z.string().max(1_000).optional(),
});
export type Ioc = z.infer<typeof IocSchema>;

const IPV4 = /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g;
const URL_RE = /\bhttps?:\/\/[^\s"'<>`]+/gi;
const EMAIL = /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g;
const SHA256 = /\b[a-fA-F0-9]{64}\b/g;
const SHA1 = /\b[a-fA-F0-9]{40}\b/g;
const MD5 = /\b[a-fA-F0-9]{32}\b/g;

function uniq(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

export function isPrivateOrReservedIpv4(ip: string): boolean {
  const [a = 0, b = 0] = ip.split(".").map(Number);
  return (
    a === 10 ||
    a === 127 ||
    a === 0 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 169 && b === 254) || // link-local, incl. the metadata server 169.254.169.254
    (a === 100 && b >= 64 && b <= 127) || // shared address space (RFC 6598)
    a >= 224
  );
}

/**
 * Pulls IOCs out of free text. Deterministic and conservative: it is used to check that
 * compression kept every IOC and to seed runbook parameters, so a false negative loses
 * evidence while a false positive only adds a harmless lookup.
 */
export function extractIocs(text: string, options: { includePrivateIps?: boolean } = {}): Ioc[] {
  const out: Ioc[] = [];
  const urls = uniq((text.match(URL_RE) ?? []).map((u) => u.replace(/[),.;\]]+$/, "")));
  for (const value of urls) out.push({ type: "url", value });
  const withoutUrls = urls.reduce((t, u) => t.split(u).join(" "), text);
  const emails = uniq(withoutUrls.match(EMAIL) ?? []).filter((e) =>
    isDomainName(e.slice(e.lastIndexOf("@") + 1)),
  );
  for (const value of emails) out.push({ type: "email", value });
  const withoutEmails = emails.reduce((t, e) => t.split(e).join(" "), withoutUrls);
  for (const value of uniq(withoutEmails.match(IPV4) ?? [])) {
    if (options.includePrivateIps || !isPrivateOrReservedIpv4(value)) out.push({ type: "ip", value });
  }
  const hashes = uniq([
    ...(text.match(SHA256) ?? []),
    ...(text.match(SHA1) ?? []),
    ...(text.match(MD5) ?? []),
  ]);
  const longest = hashes.filter((h) => !hashes.some((o) => o !== h && o.includes(h)));
  for (const value of longest) out.push({ type: "hash", value: value.toLowerCase() });
  // Domains follow the public suffix list (domain-grammar.ts), the grammar defanging uses too.
  for (const value of uniq(findDomains(withoutEmails).map((d) => normalizeHost(d.value)))) {
    out.push({ type: "domain", value });
  }
  return out;
}

export function iocKey(ioc: Pick<Ioc, "type" | "value">): string {
  return `${ioc.type}:${ioc.type === "hash" || ioc.type === "domain" ? ioc.value.toLowerCase() : ioc.value}`;
}

/** Merges IOC lists, first context wins, order of first appearance kept. */
export function mergeIocs(...lists: readonly (readonly Ioc[])[]): Ioc[] {
  const seen = new Map<string, Ioc>();
  for (const list of lists) {
    for (const ioc of list) {
      const key = iocKey(ioc);
      if (!seen.has(key)) seen.set(key, ioc);
    }
  }
  return [...seen.values()];
}

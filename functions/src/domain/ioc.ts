import { z } from "zod";
import { findDomains, isDomainName, normalizeHost } from "./domain-grammar.js";
import { isGoogleServiceAddress } from "./finding/google-ip-ranges.js";
import {
  type IocRuleId,
  isGoogleServiceDomain,
  isIdSegment,
  isImageDigestContext,
  isMaskedValue,
  isPathOrProductToken,
  isPrivateOrReservedIpv4,
  isReferenceLink,
  isVersionContext,
} from "./ioc-rules.js";

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
const HEX = /\b(?:[a-fA-F0-9]{64}|[a-fA-F0-9]{40}|[a-fA-F0-9]{32})\b/g;

export { isPrivateOrReservedIpv4 } from "./ioc-rules.js";

/** A value free text holds, typed, with the rule that makes it context when one applies. */
export interface TextCandidate {
  type: IocType;
  value: string;
  excludedBy?: IocRuleId;
}

function uniqBy(candidates: TextCandidate[]): TextCandidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = `${c.type}:${c.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Every IOC-shaped value in free text, each typed and, when it is context, marked with the
 * rule that says so (ioc-rules.ts): version numbers are not addresses, a dotted name after
 * "/" is a path or a product token, a hex run in a path is an id, masked values and Google's
 * own links and service domains are context, private addresses are internal endpoints.
 */
export function scanText(text: string): TextCandidate[] {
  const out: TextCandidate[] = [];
  const urls = [...new Set((text.match(URL_RE) ?? []).map((u) => u.replace(/[),.;\]]+$/, "")))];
  for (const value of urls)
    out.push({
      type: "url",
      value,
      ...(isReferenceLink(value) ? { excludedBy: "reference-link" as const } : {}),
    });
  const withoutUrls = urls.reduce((t, u) => t.split(u).join(" "), text);
  const emails = [...new Set(withoutUrls.match(EMAIL) ?? [])].filter((e) =>
    isDomainName(e.slice(e.lastIndexOf("@") + 1)),
  );
  for (const value of emails) out.push({ type: "email", value });
  const withoutEmails = emails.reduce((t, e) => t.split(e).join(" "), withoutUrls);
  for (const m of withoutEmails.matchAll(IPV4)) {
    const value = m[0];
    const index = m.index ?? 0;
    const excludedBy: IocRuleId | undefined = isVersionContext(withoutEmails, index, value.length)
      ? "version-string"
      : isPrivateOrReservedIpv4(value)
        ? "private-address"
        : isGoogleServiceAddress(value)
          ? "google-service-address"
          : undefined;
    out.push({ type: "ip", value, ...(excludedBy ? { excludedBy } : {}) });
  }
  for (const m of text.matchAll(HEX)) {
    const value = m[0].toLowerCase();
    const index = m.index ?? 0;
    const excludedBy: IocRuleId | undefined = isImageDigestContext(text, index)
      ? "image-digest"
      : isIdSegment(text, index, m[0].length)
        ? "finding-or-resource-id"
        : undefined;
    out.push({ type: "hash", value, ...(excludedBy ? { excludedBy } : {}) });
  }
  // Domains follow the public suffix list (domain-grammar.ts), the grammar defanging uses too.
  for (const d of findDomains(withoutEmails)) {
    const value = normalizeHost(d.value);
    const excludedBy: IocRuleId | undefined = isMaskedValue(value)
      ? "masked-value"
      : isPathOrProductToken(withoutEmails, d.index)
        ? "api-identifier"
        : isGoogleServiceDomain(value)
          ? "google-service-domain"
          : undefined;
    out.push({ type: "domain", value, ...(excludedBy ? { excludedBy } : {}) });
  }
  // An excluded and a kept occurrence of one value: the kept one wins.
  const kept = new Set(out.filter((c) => !c.excludedBy).map((c) => `${c.type}:${c.value}`));
  return uniqBy(out.filter((c) => !c.excludedBy || !kept.has(`${c.type}:${c.value}`)));
}

/**
 * Pulls IOCs out of free text: scanText without the values its rules make context. Used to
 * check that compression kept every IOC and to seed runbook parameters. `includePrivateIps`
 * keeps internal addresses (a host inside the VPC is evidence in a log row, not intel).
 */
export function extractIocs(text: string, options: { includePrivateIps?: boolean } = {}): Ioc[] {
  return scanText(text)
    .filter((c) => !c.excludedBy || (options.includePrivateIps && c.excludedBy === "private-address"))
    .map((c) => ({ type: c.type, value: c.value }));
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

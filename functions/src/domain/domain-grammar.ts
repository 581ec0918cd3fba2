import { parse } from "tldts";

/**
 * The one definition of "a domain name" shared by IOC extraction (domain/ioc.ts) and
 * defanging (notify/defang.ts), so a name that is looked up is also a name that is defanged
 * and the other way round.
 *
 * A candidate is a run of dot-separated labels (ASCII, punycode `xn--` or Unicode letters);
 * it is a domain when its last labels form a public suffix of the ICANN section of the
 * public suffix list (through `tldts`, which bundles the list). Private-section suffixes
 * (appspot.com, blogspot.com…) are not needed to decide *that* something is a domain.
 *
 * Dots: besides ".", the ideographic full stop U+3002, the fullwidth full stop U+FF0E and
 * the halfwidth ideographic full stop U+FF61 separate labels (IDNA 2003 maps them to ".",
 * and browsers and chat clients follow), so `evil。icu` is the domain `evil.icu`.
 */

/** The label separators IDNA treats as dots. */
export const DOT_CLASS = "[.\\u3002\\uFF0E\\uFF61]";
const DOTS = /[\u3002\uFF0E\uFF61]/g;

/** One label: letters (any script), digits, marks and inner hyphens; at most 63 characters. */
export const LABEL_SRC = "[\\p{L}\\p{N}](?:[\\p{L}\\p{N}\\p{M}-]{0,61}[\\p{L}\\p{N}\\p{M}])?";

/**
 * A candidate host name (two or more labels), not preceded or followed by more name. Needs
 * the `u` flag. The last label must start with a letter: TLDs never start with a digit, which
 * keeps version numbers and dotted quads out.
 */
export const HOST_CANDIDATE_SRC = `(?:${LABEL_SRC}${DOT_CLASS})+[\\p{L}](?:[\\p{L}\\p{N}\\p{M}-]{0,61}[\\p{L}\\p{N}\\p{M}])?`;

/** Replaces the IDNA dot look-alikes with "." and lowercases. */
export function normalizeHost(host: string): string {
  return host.replace(DOTS, ".").toLowerCase().replace(/\.$/, "");
}

/** True when `host` (already one candidate, no scheme, no port) ends in an ICANN public suffix. */
export function isDomainName(host: string): boolean {
  const normalized = normalizeHost(host);
  if (!normalized.includes(".") || normalized.length > 253) return false;
  const parsed = parse(normalized, { allowPrivateDomains: false, extractHostname: false });
  return parsed.isIcann === true && parsed.domain !== null && parsed.isIp !== true;
}

const CANDIDATES = new RegExp(
  `(?<![\\p{L}\\p{N}\\p{M}_-]|${DOT_CLASS})${HOST_CANDIDATE_SRC}(?![\\p{L}\\p{N}\\p{M}_-])`,
  "gu",
);

/** Every domain name in free text, in order of appearance, as written (not normalized). */
export function findDomains(text: string): { value: string; index: number }[] {
  const out: { value: string; index: number }[] = [];
  for (const m of text.matchAll(CANDIDATES)) {
    const raw = m[0];
    // A trailing dot is sentence punctuation, not part of the name.
    if (isDomainName(raw)) out.push({ value: raw, index: m.index ?? 0 });
  }
  return out;
}

import { comparisonTargets, parseCidr } from "./observable.js";
import { type Comparison, comparisonsOf, type PatternNode } from "./pattern.js";

/**
 * Patterns that would match a large part of the internet are not indicators: one such entry
 * (`[domain-name:value LIKE '%']`, `[ipv4-addr:value ISSUBSET '0.0.0.0/0']`), benign or
 * malicious, would speak about every lookup. They are refused when the bundle loads.
 *
 * The bounds: an IPv4 range wider than a /12 (about a million addresses; real reports list
 * /15s, e.g. the APT1 netblocks) or an IPv6 range wider than
 * a /32 (a regional registry's usual allocation to one network); a LIKE whose fixed text
 * names no domain of at least two labels (`%.com` is refused, `%.example.com` is not) or,
 * on other properties, has fewer than 6 fixed characters. Two-label public suffixes
 * (`%.co.uk`) are not recognised: the check has no public suffix list.
 */
export const MIN_IPV4_PREFIX = 12;
export const MIN_IPV6_PREFIX = 32;
const MIN_LIKE_LITERAL = 6;
const DOMAIN_OF_TWO_LABELS = /[a-z0-9-]+\.[a-z0-9-]*[a-z0-9]/i;
const NAMED_BY_DOMAIN = new Set(["domain-name", "url", "email-addr"]);

function rangeProblem(value: string): string | undefined {
  if (!value.includes("/")) return undefined;
  const cidr = parseCidr(value);
  if (!cidr) return `"${value.slice(0, 60)}" is not an address range`;
  const min = cidr.family === "ipv4" ? MIN_IPV4_PREFIX : MIN_IPV6_PREFIX;
  return cidr.prefix < min ? `range ${value} is wider than a /${min}` : undefined;
}

function likeProblem(c: Comparison, value: string): string | undefined {
  const fixed = value.replace(/[%_]/g, "");
  if (NAMED_BY_DOMAIN.has(c.objectType)) {
    return DOMAIN_OF_TWO_LABELS.test(fixed) ? undefined : `LIKE '${value.slice(0, 60)}' names no domain`;
  }
  return fixed.length < MIN_LIKE_LITERAL ? `LIKE '${value.slice(0, 60)}' fixes too little` : undefined;
}

/** Why a pattern matches too broadly to be used, or undefined when it does not. */
export function breadthProblem(node: PatternNode): string | undefined {
  for (const c of comparisonsOf(node)) {
    if (c.negated || c.operator === "!=") continue;
    for (const value of c.values) {
      if (typeof value !== "string") continue;
      const problem =
        c.operator === "LIKE"
          ? likeProblem(c, value)
          : (c.operator === "=" || c.operator === "IN" || c.operator === "ISSUBSET") &&
              comparisonTargets("ip", c)
            ? rangeProblem(value)
            : undefined;
      if (problem) return problem;
    }
  }
  return undefined;
}

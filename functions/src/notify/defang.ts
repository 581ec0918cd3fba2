import { DOT_CLASS, HOST_CANDIDATE_SRC, isDomainName } from "../domain/domain-grammar.js";
import type { Ioc } from "../domain/ioc.js";

/**
 * Defanging makes an indicator unclickable and un-auto-linkable while keeping it readable
 * and copyable for an analyst (who re-fangs it deliberately): `evil[.]com`, `1.2.3[.]4`,
 * `hxxps://evil[.]com/x`, `user[@]example[.]com`. Hashes are inert and stay unchanged.
 */

const DOT = "[.]";
const AT = "[@]";
// "." and its IDNA look-alikes (ideographic, fullwidth, halfwidth ideographic full stops).
const ANY_DOT = /[.\u3002\uFF0E\uFF61]/g;

// Domains are what the public suffix list says they are (domain/domain-grammar.ts, the same
// grammar the IOC extractor uses), so API method names ("compute.instances.insert") and file
// names ("config.json") stay readable while every real TLD, IDN or punycode, is broken.
const NAME_CHAR = "[\\p{L}\\p{N}\\p{M}]";
// Not followed by more name: a further label, or an already defanged "[.]".
const DOMAIN_SRC = `${HOST_CANDIDATE_SRC}(?!${NAME_CHAR}|-|\\[|${DOT_CLASS}${NAME_CHAR})`;
const IPV4_SRC = "(?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)(?![\\d.]*\\d)";
const URL_SRC = "[a-z][a-z0-9+.-]{1,15}://[^\\s<>\"'`]+";
const EMAIL_SRC = `[\\p{L}\\p{N}._%+-]+@${DOMAIN_SRC}`;

/** One pass over the text, so a replacement is never matched again by a later pattern. */
const ANY_INDICATOR = new RegExp(
  `(?<!${NAME_CHAR}|${DOT_CLASS}|-)(?:(?<url>${URL_SRC})|(?<email>${EMAIL_SRC})|(?<ip>${IPV4_SRC})|(?<domain>${DOMAIN_SRC}))`,
  "giu",
);

function lastDot(value: string): string {
  // Already defanged values pass through unchanged, so defanging twice is harmless.
  if (value.includes(DOT)) return value;
  let last = -1;
  for (const m of value.matchAll(ANY_DOT)) last = m.index ?? last;
  return last < 0 ? value : `${value.slice(0, last)}${DOT}${value.slice(last + 1)}`;
}

export function defangIp(ip: string): string {
  // IPv6 literals are never auto-linked; only dotted IPv4 needs breaking.
  return ip.includes(":") ? ip : lastDot(ip);
}

export function defangDomain(domain: string): string {
  return lastDot(domain.replace(/\.$/, ""));
}

export function defangEmail(raw: string): string {
  const email = raw.replaceAll(AT, "@"); // so an already defanged value comes out the same
  const at = email.lastIndexOf("@");
  if (at < 0) return email;
  return `${email.slice(0, at)}${AT}${defangDomain(email.slice(at + 1))}`;
}

const SCHEMES: Record<string, string> = {
  http: "hxxp",
  https: "hxxps",
  ftp: "fxp",
  ftps: "fxps",
  ws: "wxs",
  wss: "wxss",
};

export function defangUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/is.exec(url);
  if (!m) return defangText(url);
  const [, scheme = "", rawAuthority = "", rawRest = ""] = m;
  const authority = rawAuthority.replaceAll(AT, "@"); // so an already defanged value comes out the same
  const rest = rawRest.replaceAll(AT, "@");
  const fangless = SCHEMES[scheme.toLowerCase()] ?? scheme;
  const at = authority.lastIndexOf("@");
  const userinfo = at < 0 ? "" : `${authority.slice(0, at).replace(/@/g, AT)}${AT}`;
  const hostPort = at < 0 ? authority : authority.slice(at + 1);
  const host = hostPort.startsWith("[") ? hostPort : defangHostPort(hostPort);
  // A path or query can carry a live indicator of its own (a JNDI lookup's ldap://203.0.113.45):
  // nested URLs and IPv4 addresses in it are defanged too; plain words with dots (payload.sh) are not.
  const nested = rest.replace(NESTED_INDICATOR, (match: string, url?: string) =>
    url ? defangUrl(url) : defangIp(match),
  );
  return `${fangless}://${userinfo}${host}${nested.replace(/@/g, AT)}`;
}

const NESTED_INDICATOR =
  /([a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+)|\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b/gi;

function defangHostPort(hostPort: string): string {
  const colon = hostPort.lastIndexOf(":");
  const host = colon < 0 ? hostPort : hostPort.slice(0, colon);
  const port = colon < 0 ? "" : hostPort.slice(colon);
  return `${lastDot(host)}${port}`;
}

/** Principals are emails (user:, serviceAccount:) or opaque ids; only the email part can link. */
export function defangPrincipal(principal: string): string {
  return defangText(principal);
}

/**
 * The free-text pass first, then type-specific defanging (both are idempotent): the type
 * comes from a model or a feed, and a "domain" that really holds an email or a URL must not
 * slip through as clickable, while a domain with an unlisted TLD still gets its dot broken.
 */
export function defangIoc(ioc: Pick<Ioc, "type" | "value">): string {
  return defangByType({ type: ioc.type, value: defangText(ioc.value) });
}

function defangByType(ioc: Pick<Ioc, "type" | "value">): string {
  switch (ioc.type) {
    case "ip":
      return defangIp(ioc.value);
    case "domain":
      return defangDomain(ioc.value);
    case "url":
      return defangUrl(ioc.value);
    case "email":
      return defangEmail(ioc.value);
    case "principal":
      return defangPrincipal(ioc.value);
    case "hash":
      return ioc.value;
  }
}

/** Defangs every URL, email, IPv4 and domain inside free text (summaries, facts, log rows). */
export function defangText(text: string): string {
  return text.replace(ANY_INDICATOR, (match: string, ...args: unknown[]) => {
    const groups = args.at(-1) as Record<string, string | undefined>;
    if (groups.url) return defangUrl(groups.url);
    if (groups.email)
      return isDomainName(groups.email.slice(groups.email.lastIndexOf("@") + 1))
        ? defangEmail(groups.email)
        : match;
    if (groups.ip) return defangIp(groups.ip);
    if (groups.domain) return isDomainName(groups.domain) ? defangDomain(groups.domain) : match;
    return match;
  });
}

import { isIP } from "node:net";
import { parse } from "tldts";

/**
 * What is an IOC and what is context in text and in log rows, where no schema says what a
 * value means: an IOC carries the attacker or the activity (an address, a domain, a URL, the
 * hash of a file involved, an account); a version number, a path, an id segment, a masked
 * value, a private address or a Google front end is context. Each exclusion is one named rule,
 * so `inspect` can say why a value is not an IOC and a test can hold each rule to a sample
 * (test/unit/domain/ioc-rules.test.ts). Findings are read by the meaning of their fields
 * (finding-field-meaning.ts); these rules type free text (ioc.ts, a finding's command lines
 * included) and log rows (log-row-iocs.ts).
 */
export type IocRuleId =
  /** Google's documentation and console links, MITRE ATT&CK and NVD pages: references, not activity. */
  | "reference-link"
  /** Redacted values ("52.39.xxx.xxx", "10.*.*.*"): not an address anyone can look up. */
  | "masked-value"
  /** A hex finding, resource or key id inside a resource path: an id shaped like a hash. */
  | "finding-or-resource-id"
  /** A container image digest (imageId, …@sha256:…): names the image, checked by the image's own tooling. */
  | "image-digest"
  /** Log names and ids ("cloudaudit.googleapis.com%2Factivity"). */
  | "log-name"
  /** Google's own service domains (*.googleapis.com, gcr.io, *.pkg.dev). */
  | "google-service-domain"
  /** Non-network URIs (bq://, gs://): resources, listed as such. */
  | "non-network-uri"
  /** RFC 1918, loopback, link-local, shared and multicast addresses: internal endpoints, not sent to intel. */
  | "private-address"
  /** Dotted version numbers ("Chrome/141.0.0.0", "1.2.3.4.5"): never addresses. */
  | "version-string"
  /** API method, service and command names ("gcloud.logging.read", "v1.compute.instances.get"). */
  | "api-identifier"
  /** User-agent strings: the client's description of itself, not an indicator inside it. */
  | "user-agent"
  /** An address in Google's published service ranges (goog.json minus cloud.json): Google's own front end. */
  | "google-service-address"
  /**
   * A bare host name or hex run in a log column that declares no indicator (log-columns.ts): its
   * grammar alone cannot tell a domain from an account name (bob.schmidt, .schmidt is a TLD), a
   * file name (start.sh) or an id, so nothing says it is one.
   */
  | "undeclared-column";

export const IOC_RULES: Readonly<Record<IocRuleId, string>> = {
  "reference-link": "a documentation or console link (reference, not activity)",
  "masked-value": "a masked value",
  "finding-or-resource-id": "a finding, resource or key id shaped like a hash",
  "image-digest": "a container image digest",
  "log-name": "a log name",
  "google-service-domain": "a Google service domain",
  "non-network-uri": "a non-network URI (a resource)",
  "private-address": "a private address (internal endpoint, not sent to intel)",
  "version-string": "a version number",
  "api-identifier": "an API, service or command name",
  "user-agent": "a user-agent string",
  "google-service-address": "a Google service address (Google's published ranges)",
  "undeclared-column":
    "a name or digest in a log column that declares no indicator (an account, a file, an id)",
};

// ---- values ----

/** Hosts whose pages document or administer, never attack: Google Cloud docs and console, ATT&CK, NVD. */
const REFERENCE_HOSTS = [
  "cloud.google.com",
  "docs.cloud.google.com",
  "console.cloud.google.com",
  "console.developers.google.com",
  "developers.google.com",
  "support.google.com",
  "attack.mitre.org",
  "nvd.nist.gov",
  "cwe.mitre.org",
];

/** Registrable domains of Google's service endpoints and registries. */
const GOOGLE_SERVICE_DOMAINS = ["googleapis.com", "gcr.io", "pkg.dev"];

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function underAny(host: string, roots: readonly string[]): boolean {
  return roots.some((root) => host === root || host.endsWith(`.${root}`));
}

export function isReferenceLink(url: string): boolean {
  const host = hostOf(url);
  return host !== undefined && underAny(host, REFERENCE_HOSTS);
}

export function isGoogleServiceDomain(domain: string): boolean {
  const host = domain.toLowerCase().replace(/\.$/, "");
  if (underAny(host, GOOGLE_SERVICE_DOMAINS)) return true;
  const registrable = parse(host, { allowPrivateDomains: false }).domain;
  return registrable !== null && GOOGLE_SERVICE_DOMAINS.includes(registrable);
}

/** bq:// and gs:// URIs name a BigQuery table or a Cloud Storage object: resources, not URLs to look up. */
export function isResourceUri(url: string): boolean {
  return /^(?:bq|gs):\/\//i.test(url.trim());
}

const MASK_LABEL = /^(?:[xX]{2,}|\*+|#{2,}|_+)$/;

/** "52.39.xxx.xxx", "10.*.*.*", "xxx.xxx.xxx.xxx": a value with its labels blanked out. */
export function isMaskedValue(value: string): boolean {
  const labels = value.trim().split(".");
  if (labels.length < 2) return false;
  const masked = labels.filter((l) => MASK_LABEL.test(l)).length;
  if (masked === 0) return false;
  return labels.every((l) => MASK_LABEL.test(l) || /^\d{1,3}$/.test(l));
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

/** Private, loopback, link-local or unique-local: an internal endpoint (IPv4 and IPv6). */
export function isInternalAddress(ip: string): boolean {
  const version = isIP(ip);
  if (version === 4) return isPrivateOrReservedIpv4(ip);
  if (version === 6) {
    const v = ip.toLowerCase();
    return v === "::1" || v === "::" || /^f[cd]/.test(v) || /^fe[89ab]/.test(v) || /^ff/.test(v);
  }
  return false;
}

const SYSTEM_LIBRARY_DIRS =
  /^\/(?:usr\/)?lib(?:32|64|x32)?\/|^\/usr\/local\/lib\/|^\/(?:usr\/)?lib\/x86_64-linux-gnu\//;

/** A library loaded from the OS's library directories (libc and friends). */
export function isSystemLibraryPath(path: string): boolean {
  return SYSTEM_LIBRARY_DIRS.test(path.trim());
}

// ---- where a value sits ----

/** Log-row keys (Cloud Logging and Cloud Audit Logs) whose values are context whatever they look like. */
const CONTEXT_KEYS: Readonly<Record<string, IocRuleId>> = {
  logName: "log-name",
  logId: "log-name",
  log_name: "log-name",
  log_id: "log-name",
  methodName: "api-identifier",
  method_name: "api-identifier",
  serviceName: "api-identifier",
  service_name: "api-identifier",
  "@type": "api-identifier",
  userAgent: "user-agent",
  user_agent: "user-agent",
  userAgentFamily: "user-agent",
  callerUserAgent: "user-agent",
  rawUserAgent: "user-agent",
  callerSuppliedUserAgent: "user-agent",
  caller_supplied_user_agent: "user-agent",
  imageId: "image-digest",
  imageDigest: "image-digest",
  image_id: "image-digest",
};

/**
 * The rule that makes everything under a log-row path context, if any. `keys` are the path's
 * keys from the root ("protoPayload", "requestMetadata", "callerSuppliedUserAgent").
 */
export function contextRuleFor(keys: readonly string[]): IocRuleId | undefined {
  for (const key of keys) {
    const rule = CONTEXT_KEYS[key];
    if (rule) return rule;
  }
  const last = keys.at(-1);
  // A container's `uri` is its image reference (gcr.io/…@sha256:…).
  if (last === "uri" && keys.includes("containers")) return "image-digest";
  return undefined;
}

// ---- inside free text ----

/** An IPv4-shaped run that is a version: after "Product/", "v" or "version", or with more dotted numbers. */
export function isVersionContext(text: string, index: number, length: number): boolean {
  const before = text.slice(Math.max(0, index - 12), index);
  const after = text.slice(index + length, index + length + 2);
  return /[/\\]$|[A-Za-z_]$|\bv(?:ersion)?[\s:=]*$/i.test(before) || /^\.\d/.test(after);
}

/** A dotted name right after "/" is a path or a product token ("command/gcloud.logging.read"), not a host. */
export function isPathOrProductToken(text: string, index: number): boolean {
  return (
    index > 0 &&
    /[/\\]/.test(text[index - 1] ?? "") &&
    !/:\/\/$/.test(text.slice(Math.max(0, index - 3), index))
  );
}

/** A hex run that is a path segment ("…/findings/<id>", "keys/<id>") is an id, not a hash. */
export function isIdSegment(text: string, index: number, length: number): boolean {
  const before = text[index - 1] ?? "";
  const after = text[index + length] ?? "";
  return before === "/" || after === "/";
}

/** A hex run after "@sha256:" or "sha256:" in an image reference. */
export function isImageDigestContext(text: string, index: number): boolean {
  const prefix = text.slice(0, index);
  return /@sha256:$/.test(prefix) || /^\s*sha256:$/.test(prefix);
}

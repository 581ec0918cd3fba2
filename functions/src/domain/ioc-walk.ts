import { isIP } from "node:net";
import { isDomainName, normalizeHost } from "./domain-grammar.js";
import { isGoogleServiceAddress } from "./finding/google-ip-ranges.js";
import {
  accountOf,
  asIndicator,
  type IndicatorGrammarKind,
  isResourceName,
  serviceAccountKeyOwner,
} from "./finding/indicator-grammar.js";
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
import { columnKind } from "./log-columns.js";

/**
 * Walks a log row and types its values by what each column is (log-columns.ts), keeping the
 * JSON path of each. A column that declares a kind (`dest_ip`, `principalEmail`, `queryName`)
 * yields its value when the value is written in that kind's grammar (indicator-grammar.ts, the
 * finding reader's). Any other column is free text or context: only values whose grammar alone
 * says what they are (an address, a URL with its scheme, an e-mail) are taken from it, by the
 * rules of ioc-rules.ts; a bare host name or hex run there is context ("undeclared-column"),
 * since `bob.schmidt` is an account as often as a domain. Private addresses are internal
 * endpoints; resource names are resources. Findings are not walked: they are read by field
 * meaning (finding-iocs.ts).
 */

export interface WalkHit {
  kind: "ioc" | "excluded" | "internal" | "resource";
  type?: IocType;
  value: string;
  path: string;
  /** The leaf's key ("callerIp"), for context labels. */
  key: string;
  rule?: IocRuleId;
  /** Why a value in a declared column is not one (it fails the column's grammar). */
  reason?: string;
}

const HASH = /^(?:[a-f0-9]{32}|[a-f0-9]{40}|[a-f0-9]{64})$/i;
const URL_WHOLE = /^[a-z][a-z0-9+.-]{1,15}:\/\/\S+$/i;
// Account names: "bob.schmidt" is a user on a VM, not the domain it spells (.schmidt is a TLD).
const ACCOUNT_KEY = /^(?:user_?name|user|login|account|account_?name|local_?user)$/i;
// A file system path: "/tmp/.x/start.sh" names a file, not the domain start.sh.
const FILE_PATH = /^(?:\/|[A-Za-z]:\\)\S*$/;

/** A whole value that is itself one indicator (or one piece of context); free text is scanned. */
export function classifyWhole(
  raw: string,
): { type: IocType; value: string; excludedBy?: IocRuleId; internal?: boolean } | undefined {
  const value = raw.trim();
  if (!value || value.length > 2_048) return undefined;
  if (isIP(value)) {
    if (value === "0.0.0.0" || value === "::") return undefined;
    if (isInternalAddress(value)) return { type: "ip", value, internal: true };
    return isGoogleServiceAddress(value)
      ? { type: "ip", value, excludedBy: "google-service-address" }
      : { type: "ip", value };
  }
  if (isMaskedValue(value)) return { type: "ip", value, excludedBy: "masked-value" };
  const member = accountOf(value);
  if (member) return { type: "principal", value: member };
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

interface Frame {
  value: JsonValue;
  path: string;
  keys: readonly string[];
}

/** Every hit under `root` (a log row), in document order. */
export function walkIocs(root: JsonValue, rootPath: string): WalkHit[] {
  const hits: WalkHit[] = [];
  const stack: Frame[] = [{ value: root, path: rootPath, keys: [] }];
  while (stack.length > 0) {
    const { value, path, keys } = stack.pop() as Frame;
    if (typeof value === "string") {
      leaf(value, path, keys, hits);
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    const entries: [string | number, JsonValue][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    // Pushed in reverse so the stack pops them in document order.
    for (const [k, v] of entries.reverse())
      stack.push({ value: v, path: childPath(path, k), keys: typeof k === "number" ? keys : [...keys, k] });
  }
  return hits;
}

/** A value in a column that declares `kind`: its grammar, then the rules that hold for every row. */
function declared(
  kind: IndicatorGrammarKind,
  value: string,
  path: string,
  key: string,
  hits: WalkHit[],
): void {
  if (isResourceUri(value)) {
    hits.push({ kind: "resource", value, path, key });
    return;
  }
  const verdict = asIndicator(kind, value);
  if (verdict.is === "internal") {
    hits.push({ kind: "internal", type: "ip", value: verdict.value, path, key });
    return;
  }
  if (verdict.is === "context") {
    hits.push({
      kind: "excluded",
      type: verdict.type,
      value: verdict.value,
      path,
      key,
      reason: verdict.reason,
    });
    return;
  }
  // Google's own service domains and links to documentation stay context.
  const whole = verdict.type === "principal" ? undefined : classifyWhole(verdict.value);
  if (whole?.excludedBy)
    hits.push({
      kind: "excluded",
      type: verdict.type,
      value: verdict.value,
      path,
      key,
      rule: whole.excludedBy,
    });
  else hits.push({ kind: "ioc", type: verdict.type, value: verdict.value, path, key });
}

function leaf(raw: string, path: string, keys: readonly string[], hits: WalkHit[]): void {
  const key = keys.at(-1) ?? "";
  const value = raw.trim();
  const owner = serviceAccountKeyOwner(value);
  if (owner) hits.push({ kind: "ioc", type: "principal", value: owner, path, key });
  // A resource name, bare or as a principal:// / principalSet:// member (a workload identity pool).
  if (isResourceName(value)) {
    hits.push({ kind: "resource", value, path, key });
    return;
  }
  const rule = contextRuleFor(keys);
  const kind = rule ? undefined : columnKind(key);
  if (kind === "reference") return;
  if (kind) {
    if (value) declared(kind, value, path, key, hits);
    return;
  }
  const whole = classifyWhole(value);
  if (ACCOUNT_KEY.test(key) && whole?.type !== "principal" && whole?.type !== "ip") return;
  if (whole) {
    if (rule) hits.push({ kind: "excluded", type: whole.type, value: whole.value, path, key, rule });
    else if (!whole.excludedBy && (whole.type === "domain" || whole.type === "hash"))
      hits.push({
        kind: "excluded",
        type: whole.type,
        value: whole.value,
        path,
        key,
        rule: "undeclared-column",
      });
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
    const why =
      rule ?? c.excludedBy ?? (c.type === "domain" || c.type === "hash" ? "undeclared-column" : undefined);
    if (why === "private-address") hits.push({ kind: "internal", type: "ip", value: c.value, path, key });
    else if (why) hits.push({ kind: "excluded", type: c.type, value: c.value, path, key, rule: why });
    else hits.push({ kind: "ioc", type: c.type, value: c.value, path, key });
  }
}

import { isIP } from "node:net";
import { isDomainName, normalizeHost } from "../domain-grammar.js";
import type { IocType } from "../ioc.js";
import { isInternalAddress, isMaskedValue } from "../ioc-rules.js";
import { isGoogleServiceAddress } from "./google-ip-ranges.js";

/**
 * Whether a value a field declares to be an indicator of some kind is one: it must be written
 * in that kind's grammar (an address, a host name ending in a public suffix, a URL whose host is
 * one, a hex digest, an account). A placeholder ("[apiserver]", "x.x.x.x"), a range, text around
 * the value or a value wrapped over lines is not, and is kept as context with the reason.
 */

export type GrammarVerdict =
  | { is: "indicator"; type: IocType; value: string }
  | { is: "internal"; value: string }
  | { is: "context"; type: IocType; value: string; reason: string };

export type IndicatorGrammarKind = "ip" | "domain" | "url" | "hash" | "principal";

/** `user:`, `serviceAccount:`, `deleted:user:` … before an account in an IAM member. */
const MEMBER_PREFIX = /^(?:deleted:)?(?:user|serviceAccount|group|domain|principal|principalSet):/i;
const EMAIL = /^[^\s@/:]+@([^\s@/]+)$/;
const HASH = /^(?:[a-f0-9]{32}|[a-f0-9]{40}|[a-f0-9]{64})$/i;

/** A full resource name (//service.googleapis.com/…), bare or as a principal:// member. */
export function isResourceName(value: string): boolean {
  return /^(?:principal(?:Set)?:)?\/\/[a-z0-9.-]+\.googleapis\.com\/\S+$/i.test(value.trim());
}

/** The owner of a service-account key named in a resource path, if the path is one. */
export function serviceAccountKeyOwner(value: string): string | undefined {
  return /serviceAccounts\/([^/\s@]+@[^/\s]+\.iam\.gserviceaccount\.com)\/keys\//i
    .exec(value)?.[1]
    ?.toLowerCase();
}

/** The account an IAM member or principal field names, without its prefix, if it is an e-mail. */
export function accountOf(value: string): string | undefined {
  const member = value.trim().replace(MEMBER_PREFIX, "");
  const host = EMAIL.exec(member)?.[1];
  return host && isDomainName(host) ? member : undefined;
}

function address(value: string, fromIndicatorField: boolean): GrammarVerdict {
  if (isMaskedValue(value)) return { is: "context", type: "ip", value, reason: "a masked address" };
  if (isIP(value) === 0) return { is: "context", type: "ip", value, reason: "not an IP address" };
  if (value === "0.0.0.0" || value === "::")
    return { is: "context", type: "ip", value, reason: "the any-address" };
  if (isInternalAddress(value)) return { is: "internal", value };
  // Google's own front ends (goog.json minus cloud.json) say nothing about an attacker when they
  // are a peer something reached, unless a detector lists one as the finding's indicator or names
  // it as the address the actor acted from (a call relayed by a Google service, Apps Script for
  // one, still came from there).
  if (!fromIndicatorField && isGoogleServiceAddress(value))
    return {
      is: "context",
      type: "ip",
      value,
      reason: "a Google service address (Google's published ranges)",
    };
  return { is: "indicator", type: "ip", value };
}

function url(value: string): GrammarVerdict {
  const context = (reason: string): GrammarVerdict => ({ is: "context", type: "url", value, reason });
  if (/\s/.test(value)) return context("not one URL (contains white space)");
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return context("not a URL (fails the URL grammar)");
  }
  if (!value.includes("://") || !parsed.hostname) return context("not a URL with a host");
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) === 0 && !isDomainName(host)) return context("its host is not a host name");
  return { is: "indicator", type: "url", value };
}

/** The verdict for `value` in a field that declares `kind`. */
export function asIndicator(
  kind: IndicatorGrammarKind,
  raw: string,
  fromIndicatorField = false,
): GrammarVerdict {
  const value = raw.trim();
  switch (kind) {
    case "ip":
      return address(value, fromIndicatorField);
    case "domain": {
      const host = normalizeHost(value);
      return isDomainName(host) && !/[\s/:@[\]]/.test(host)
        ? { is: "indicator", type: "domain", value: host }
        : { is: "context", type: "domain", value, reason: "not a host name" };
    }
    case "url":
      return url(value);
    case "hash":
      return HASH.test(value)
        ? { is: "indicator", type: "hash", value: value.toLowerCase() }
        : { is: "context", type: "hash", value, reason: "not a hex digest" };
    case "principal": {
      const account = accountOf(value);
      return account
        ? { is: "indicator", type: "principal", value: account }
        : { is: "context", type: "principal", value, reason: "not an account" };
    }
  }
}

/** The kind a whole value is written in, if it is one indicator-shaped value (for context listings). */
export function shapeOf(raw: string): IndicatorGrammarKind | undefined {
  const value = raw.trim();
  if (!value || value.length > 2_048) return undefined;
  if (isIP(value) !== 0 || isMaskedValue(value)) return "ip";
  if (accountOf(value)) return "principal";
  if (HASH.test(value)) return "hash";
  if (/^[a-z][a-z0-9+.-]{1,15}:\/\/\S+$/i.test(value)) return "url";
  if (isDomainName(value) && !/[\s/:@]/.test(value)) return "domain";
  return undefined;
}

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Cross-site request forgery defence for the console's forms, two independent checks:
 * 1. the request is same-origin: its `Origin` equals the console's own origin (or, when a
 *    browser sends no Origin, `Sec-Fetch-Site: same-origin`); neither → refused;
 * 2. double-submit token: a random per-browser value in a SameSite=Strict, HttpOnly cookie,
 *    and in each form an HMAC of it bound to the signed-in user, so a token minted for one
 *    user is worthless for another. The HMAC key is the cookie value itself: no server secret
 *    to distribute across instances.
 */
export const CSRF_COOKIE = "ferret_csrf";
export const CSRF_FIELD = "csrf";

export function newCsrfSecret(): string {
  return randomBytes(24).toString("base64url");
}

export function csrfToken(secret: string, userEmail: string): string {
  return createHmac("sha256", secret).update(`ferret-console\n${userEmail}`).digest("base64url");
}

export function validCsrfToken(secret: string | undefined, userEmail: string, token: unknown): boolean {
  if (!secret || typeof token !== "string" || token.length === 0) return false;
  const expected = Buffer.from(csrfToken(secret, userEmail));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export type OriginVerdict = { ok: true } | { ok: false; reason: string };

export function sameOrigin(
  headers: { origin?: string | undefined; secFetchSite?: string | undefined },
  ownOrigin: string,
): OriginVerdict {
  if (headers.origin !== undefined) {
    return headers.origin === ownOrigin
      ? { ok: true }
      : { ok: false, reason: `cross-origin request from ${headers.origin.slice(0, 200)}` };
  }
  if (headers.secFetchSite !== undefined) {
    return headers.secFetchSite === "same-origin"
      ? { ok: true }
      : { ok: false, reason: `Sec-Fetch-Site is ${headers.secFetchSite.slice(0, 40)}` };
  }
  return { ok: false, reason: "no Origin or Sec-Fetch-Site header: cannot tell where the form came from" };
}

/** The value of one cookie from a Cookie header; malformed pairs are ignored. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

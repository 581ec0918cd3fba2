import assert from "node:assert/strict";
import { generateKeyPairSync, sign } from "node:crypto";
import { describe, it } from "node:test";
import { loadConfig } from "../../../functions/src/config/config.js";
import {
  authenticatorFor,
  ConsoleAuthError,
  IAP_JWT_HEADER,
  iapAuthenticator,
} from "../../../functions/src/console/identity.js";
import { ConfigError } from "../../../functions/src/domain/errors.js";

/**
 * IAP's signed header, verified with google-auth-library against keys we hold: a token made
 * the way IAP makes them (ES256, kid, iss https://cloud.google.com/iap, aud the backend) is
 * accepted, and each thing that can be wrong with one is refused.
 */
const AUDIENCE = "/projects/123456789/locations/europe-west1/services/ferret-console";
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const other = generateKeyPairSync("ec", { namedCurve: "P-256" });
const KEYS = { k1: publicKey.export({ type: "spki", format: "pem" }).toString() };

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
function jwt(claims: Record<string, unknown>, key = privateKey, kid = "k1"): string {
  const now = Math.floor(Date.now() / 1000);
  const body = `${b64({ alg: "ES256", typ: "JWT", kid })}.${b64({
    iss: "https://cloud.google.com/iap",
    aud: AUDIENCE,
    sub: "accounts.google.com:1234",
    email: "Ana@Example.com",
    iat: now - 10,
    exp: now + 600,
    ...claims,
  })}`;
  const signature = sign("sha256", Buffer.from(body), { key, dsaEncoding: "ieee-p1363" });
  return `${body}.${signature.toString("base64url")}`;
}
const headers = (token?: string) => (name: string) => (name === IAP_JWT_HEADER ? token : undefined);
const auth = iapAuthenticator(AUDIENCE, async () => KEYS);

describe("console identity", () => {
  it("accepts IAP's token and takes the user from its email", async () => {
    assert.deepEqual(await auth(headers(jwt({}))), { email: "ana@example.com" });
  });

  for (const [what, token] of [
    ["no header", undefined],
    ["another audience", jwt({ aud: "/projects/1/locations/x/services/other" })],
    ["another issuer", jwt({ iss: "https://accounts.google.com" })],
    ["an expired token", jwt({ iat: 1_000, exp: 1_600 })],
    ["a signature by another key", jwt({}, other.privateKey)],
    ["an unknown key id", jwt({}, privateKey, "k9")],
    ["no email", jwt({ email: undefined })],
    ["garbage", "not.a.jwt"],
  ] as const) {
    it(`refuses ${what}`, async () => {
      await assert.rejects(auth(headers(token)), ConsoleAuthError);
    });
  }

  it("never reads IAP's unsigned email header", async () => {
    const unsigned = (name: string) =>
      name === "x-goog-authenticated-user-email" ? "accounts.google.com:boss@example.com" : undefined;
    await assert.rejects(auth(unsigned), ConsoleAuthError);
  });

  it("IAP mode without an audience stops at start-up, naming the variable", () => {
    assert.throws(
      () => authenticatorFor(loadConfig({ env: {} })),
      (e: unknown) => e instanceof ConfigError && /FERRET_CONSOLE_IAP_AUDIENCE/.test(e.message),
    );
  });

  it("local mode is the configured user", async () => {
    const local = authenticatorFor(
      loadConfig({ env: { FERRET_CONSOLE_AUTH: "local", FERRET_CONSOLE_LOCAL_USER: "Me@Example.com" } }),
    );
    assert.deepEqual(await local(headers()), { email: "me@example.com" });
  });
});

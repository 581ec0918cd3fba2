import { createSign, generateKeyPairSync, randomBytes } from "node:crypto";
import { OAuth2Client } from "google-auth-library";
import type { Refusal } from "./gate-proxy.js";

/**
 * OIDC identity tokens off GCP, for the local stack's two token senders and its one checker.
 *
 * In GCP the workflow's `http.post` with `auth: {type: OIDC}` carries a Google-signed ID token
 * for the workflow's service account whose audience is `auth.audience`, or the request URL when
 * unset (https://cloud.google.com/workflows/docs/authenticate-from-workflow#invoke_cloud_run_or),
 * and a push subscription's `oidc_token` makes Pub/Sub attach one for the push service account
 * with the configured audience (https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions).
 * Cloud Run then admits the request only if the token's signature, issuer, audience (the
 * service's URL) and expiry check out and its principal holds roles/run.invoker on the service
 * (https://cloud.google.com/run/docs/authenticating/service-to-service,
 * https://cloud.google.com/run/docs/securing/managing-access).
 *
 * Locally a key pair minted per stack stands for Google's signing keys: the executions process
 * and the push relay sign with the private key (RS256, Google's issuer and claim names), and each
 * function's gate verifies with google-auth-library's own ID-token verifier
 * (OAuth2Client.verifySignedJwtWithCertsAsync: signature, `aud`, `iss`, `iat`/`exp`), then checks
 * the principal against the function's invokers from terraform/iam.tf.
 */
export const GOOGLE_ISSUERS = ["https://accounts.google.com", "accounts.google.com"];

/** Google's ID tokens last an hour. */
const LIFETIME_S = 3_600;

export interface SigningKey {
  kid: string;
  privateKeyPem: string;
  publicKeyPem: string;
}

export function mintSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    kid: randomBytes(8).toString("hex"),
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");

/** An ID token as Google signs one for a service account: RS256, Google's issuer, `email` the account. */
export function signIdToken(
  key: Pick<SigningKey, "kid" | "privateKeyPem">,
  claims: { audience: string; email: string; nowS?: number; lifetimeS?: number },
): string {
  const iat = claims.nowS ?? Math.floor(Date.now() / 1_000);
  const header = base64url(JSON.stringify({ alg: "RS256", kid: key.kid, typ: "JWT" }));
  const payload = base64url(
    JSON.stringify({
      iss: GOOGLE_ISSUERS[0],
      aud: claims.audience,
      azp: claims.email,
      sub: claims.email,
      email: claims.email,
      email_verified: true,
      iat,
      exp: iat + (claims.lifetimeS ?? LIFETIME_S),
    }),
  );
  const signature = createSign("RSA-SHA256").update(`${header}.${payload}`).sign(key.privateKeyPem);
  return `${header}.${payload}.${base64url(signature)}`;
}

export interface TokenCheck {
  /** kid → public key PEM of the keys tokens may be signed with. */
  publicKeys: Readonly<Record<string, string>>;
  /**
   * The receiving service's URL, and any custom audience it was given: the audiences accepted,
   * each with or without a trailing slash (Google's Cloud Run sample mints
   * `https://my-cloud-run-service.run.app/`: GoogleCloudPlatform/python-docs-samples
   * auth/service-to-service/auth.py, PR #7559). A URL with a path is not the service's URL.
   */
  audiences: readonly string[];
  /** Principals holding roles/run.invoker on the service ("serviceAccount:…", or "allUsers"). */
  invokers: readonly string[];
}

const verifier = new OAuth2Client();

/**
 * Cloud Run's check of one request: a public service (allUsers) admits anyone; otherwise 401
 * without a bearer token or with one that fails verification, 403 when its principal is not an
 * invoker.
 */
export async function checkIdToken(
  authorization: string | undefined,
  check: TokenCheck,
): Promise<Refusal | undefined> {
  if (check.invokers.includes("allUsers")) return undefined;
  const token = /^Bearer (\S+)$/i.exec(authorization ?? "")?.[1];
  if (!token) return { status: 401, reason: "no bearer ID token" };
  let email: string | undefined;
  try {
    const ticket = await verifier.verifySignedJwtWithCertsAsync(
      token,
      { ...check.publicKeys },
      check.audiences.flatMap((a) => [a.replace(/\/$/, ""), `${a.replace(/\/$/, "")}/`]),
      GOOGLE_ISSUERS,
    );
    email = ticket.getPayload()?.email;
  } catch (error) {
    return {
      status: 401,
      reason: `the ID token was refused: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (!email || !check.invokers.includes(`serviceAccount:${email}`))
    return { status: 403, reason: `${email ?? "the token's principal"} may not invoke this function` };
  return undefined;
}

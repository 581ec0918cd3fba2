import type { OAuth2Client } from "google-auth-library";
import type { Config } from "../config/config.js";
import { ConfigError, FerretError } from "../domain/errors.js";

/** The person behind a console request, as a verified email. */
export interface ConsoleUser {
  email: string;
}

/** No verified identity: the request is refused (401); retrying the same request cannot help. */
export class ConsoleAuthError extends FerretError {
  constructor(message: string) {
    super("invalid_input", message, { retryable: false });
  }
}

export const IAP_JWT_HEADER = "x-goog-iap-jwt-assertion";
const IAP_ISSUER = "https://cloud.google.com/iap";
const KEYS_TTL_MS = 3_600_000;

export type Authenticate = (header: (name: string) => string | undefined) => Promise<ConsoleUser>;

// google-auth-library loads with the first request to verify, not with the console's module.
let library: Promise<typeof import("google-auth-library")> | undefined;
function oauthClient(): Promise<OAuth2Client> {
  library ??= import("google-auth-library");
  return library.then((m) => new m.OAuth2Client());
}

/**
 * IAP signs every request it lets through with an ES256 JWT in `x-goog-iap-jwt-assertion`;
 * the backend must verify signature, issuer and audience itself, since a request that
 * bypassed the proxy carries whatever headers its sender chose. The unsigned
 * `x-goog-authenticated-user-email` header is never read. google-auth-library does the
 * verification (and fetches IAP's public keys); the keys are cached for an hour.
 */
export function iapAuthenticator(
  audience: string,
  keys: () => Promise<Record<string, string>> = iapKeysFromGoogle(),
): Authenticate {
  let verifier: Promise<OAuth2Client> | undefined;
  return async (header) => {
    const jwt = header(IAP_JWT_HEADER);
    if (!jwt)
      throw new ConsoleAuthError(`no ${IAP_JWT_HEADER} header: the console is served through IAP only`);
    let email: unknown;
    try {
      verifier ??= oauthClient();
      const ticket = await (await verifier).verifySignedJwtWithCertsAsync(jwt, await keys(), audience, [
        IAP_ISSUER,
      ]);
      email = ticket.getPayload()?.email;
    } catch (error) {
      throw new ConsoleAuthError(`IAP token refused: ${(error as Error).message}`);
    }
    if (typeof email !== "string" || !/^[^\s@]+@[^\s@]+$/.test(email)) {
      throw new ConsoleAuthError("IAP token carries no email");
    }
    return { email: email.toLowerCase() };
  };
}

function iapKeysFromGoogle(): () => Promise<Record<string, string>> {
  let client: Promise<OAuth2Client> | undefined;
  let cached: { at: number; keys: Promise<Record<string, string>> } | undefined;
  return () => {
    if (!cached || Date.now() - cached.at > KEYS_TTL_MS) {
      client ??= oauthClient();
      const keys = client
        .then((c) => c.getIapPublicKeysAsync())
        .then((r) => r.pubkeys as Record<string, string>);
      keys.catch(() => {
        cached = undefined;
      });
      cached = { at: Date.now(), keys };
    }
    return cached.keys;
  };
}

/** `ferret console` on loopback: the configured local user, nobody else can reach it. */
export function localAuthenticator(email: string): Authenticate {
  return async () => ({ email: email.toLowerCase() });
}

export function authenticatorFor(config: Pick<Config, "console">): Authenticate {
  if (config.console.auth === "local") return localAuthenticator(config.console.localUser);
  if (!config.console.iapAudience) {
    throw new ConfigError("console.auth=iap needs console.iapAudience (FERRET_CONSOLE_IAP_AUDIENCE)");
  }
  return iapAuthenticator(config.console.iapAudience);
}

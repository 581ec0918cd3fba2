import { randomBytes } from "node:crypto";
import {
  type BearerIdentities,
  bearerTokenAccess,
  type CallbackServerOptions,
} from "../../../workflows/runner/callback-server.js";
import { FUNCTIONS } from "../doctor/expectations.js";
import { ROLES, type RoleName } from "../roles/index.js";

/**
 * Who each function is off GCP. In GCP every function runs as its own service account and
 * sends that account's OAuth token; a Workflows callback is accepted only from a principal
 * holding workflows.callbacks.send, which Terraform grants to the analystActions worker alone
 * (terraform/approvals.tf, decision 0031). Locally each function gets a random bearer token
 * standing for its account (FERRET_LOCAL_IDENTITY_TOKEN, sent by
 * adapters/workflows/callback-sender.ts), and the runner's callback server
 * (workflows/runner/callback-server.ts) maps tokens to principals and accepts only the
 * worker's: 401 without an identity, 403 for any other function's. The local stack and the
 * in-process approval test use the same mapping.
 */
export const LOCAL_IDENTITY_PROJECT = "ferret-local";

/** The one function that may wake a paused execution. */
export const CALLBACK_SENDER = "analystActions" satisfies RoleName;

/** The principal a function stands for, as IAM writes it (its Terraform account id). */
export function localPrincipal(name: RoleName): string {
  return `serviceAccount:${FUNCTIONS[name].accountId}@${LOCAL_IDENTITY_PROJECT}.iam.gserviceaccount.com`;
}

export interface LocalIdentities {
  /** The bearer token each function sends as itself (its FERRET_LOCAL_IDENTITY_TOKEN). */
  tokens: Readonly<Record<RoleName, string>>;
  /** Token → principal, and the principals that may call back: what the callback server gets. */
  callbacks: BearerIdentities;
}

/** Fresh tokens for every function; only the analystActions worker may call back. */
export function mintLocalIdentities(): LocalIdentities {
  const tokens = Object.fromEntries(
    ROLES.map((e) => [e.name, `local-${e.name}-${randomBytes(18).toString("base64url")}`]),
  ) as Record<RoleName, string>;
  const principals = Object.fromEntries(ROLES.map((e) => [tokens[e.name], localPrincipal(e.name)]));
  return { tokens, callbacks: { principals, allowed: [localPrincipal(CALLBACK_SENDER)] } };
}

/** The callback server's options for these identities (startCallbackServer). */
export function callbackAccess(identities: LocalIdentities): CallbackServerOptions {
  return bearerTokenAccess(identities.callbacks);
}

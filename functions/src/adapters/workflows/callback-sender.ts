import { WorkflowCallbackError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import type { WorkflowCallbacks } from "../../ports/workflow-callbacks.js";

/**
 * Workflows callbacks over HTTP. Cloud Workflows wants an OAuth 2.0 access token of a
 * principal holding workflows.callbacks.send ("Send callback requests" in the callbacks
 * guide); in GCP that is the approval function's service account, its token from the
 * metadata server through google-auth-library. The local stack's callback server accepts the
 * bearer token the stack gave the function instead (local/identities.ts).
 */
export function httpWorkflowCallbacks(token: () => Promise<string>, timeoutMs = 10_000): WorkflowCallbacks {
  return {
    async send(url: string, body: JsonObject) {
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${await token()}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.arrayBuffer();
      if (res.status === 429 || res.status >= 500)
        throw new WorkflowCallbackError(
          `the workflow callback answered ${res.status}; retrying may help`,
          true,
        );
      if (res.status === 401 || res.status === 403)
        throw new WorkflowCallbackError(
          `the workflow callback refused this function's identity (${res.status}): it needs workflows.callbacks.send`,
          false,
        );
      return { status: res.status };
    },
  };
}

/**
 * The function's service-account access token, from Application Default Credentials; the
 * library loads on the first callback, not when the instance starts.
 */
export function googleAccessToken(): () => Promise<string> {
  let auth: Promise<{ getAccessToken(): Promise<string | null | undefined> }> | undefined;
  return async () => {
    auth ??= import("google-auth-library").then(
      ({ GoogleAuth }) => new GoogleAuth({ scopes: ["https://www.googleapis.com/auth/cloud-platform"] }),
    );
    const token = await (await auth).getAccessToken();
    if (!token) throw new WorkflowCallbackError("no access token for the workflow callback", true);
    return token;
  };
}

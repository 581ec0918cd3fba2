import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createLogger, maskSecrets } from "../../../functions/src/platform/logger.js";

/**
 * The logger masks by what a value is (token and key formats) and by an explicit list of
 * secret keys, not by any key containing "token" or "credential": token counts, page
 * tokens and SCC's Credential Access category are what a reader of the logs needs.
 */
function logged(fields: Record<string, unknown>, message = "event"): Record<string, unknown> {
  const lines: string[] = [];
  createLogger({ sink: { write: (l) => lines.push(l) } }).info(message, fields);
  assert.equal(lines.length, 1);
  return JSON.parse(lines[0] as string) as Record<string, unknown>;
}

describe("log masking", () => {
  it("keeps token counts, page tokens and credential-access categories readable", () => {
    const entry = logged({
      inputTokens: 1234,
      outputTokens: 56,
      thoughtsTokens: 7,
      tokenBudget: 200_000,
      usage: { inputTokens: 10, cachedInputTokens: 3 },
      pageToken: "b2Zmc2V0OjUw",
      nextPageToken: "b2Zmc2V0OjEwMA",
      credentialAccess: true,
      category: "Credential Access: Anomalous Access to Secret Manager",
      findingClass: "THREAT",
    });
    assert.equal(entry.inputTokens, 1234);
    assert.equal(entry.outputTokens, 56);
    assert.equal(entry.thoughtsTokens, 7);
    assert.equal(entry.tokenBudget, 200_000);
    assert.deepEqual(entry.usage, { inputTokens: 10, cachedInputTokens: 3 });
    assert.equal(entry.pageToken, "b2Zmc2V0OjUw");
    assert.equal(entry.nextPageToken, "b2Zmc2V0OjEwMA");
    assert.equal(entry.credentialAccess, true);
    assert.equal(entry.category, "Credential Access: Anomalous Access to Secret Manager");
  });

  it("masks every key on the secret list, whatever its spelling, at any depth", () => {
    const entry = logged({
      token: "opaque-value-1",
      access_token: "opaque-value-2",
      "X-Goog-Api-Key": "opaque-value-3",
      request: { headers: { Authorization: "Basic b3BhcXVlLXZhbHVlLTQ=" } },
      client_secret: "opaque-value-5",
      nested: [{ password: "opaque-value-6" }],
      credentials: { type: "service_account", client_email: "x@y.iam.gserviceaccount.com" },
    });
    const text = JSON.stringify(entry);
    for (const secret of ["opaque-value-", "b3BhcXVlLXZhbHVlLTQ", "service_account"])
      assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
    assert.equal(entry.token, "[masked]");
    assert.equal(entry.access_token, "[masked]");
    assert.equal(entry["X-Goog-Api-Key"], "[masked]");
  });

  it("masks token and key formats wherever they appear, leaving the text around them", () => {
    const jwt =
      "eyJhbGciOiJSUzI1NiIsImtpZCI6ImFiYyJ9.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20ifQ.c2lnbmF0dXJlLXBhcnQtMTIz";
    const samples = {
      slack: "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
      google: "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
      bearer: "Bearer abcdefghijklmnop.qrstuvwx",
      jwt,
      oauth: "ya29.a0AfH6SMBx3q9Zk2exampleexampleexample",
      pem: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
    };
    for (const [kind, secret] of Object.entries(samples)) {
      const masked = maskSecrets(`before ${secret} after`);
      assert.equal(masked, "before [masked] after", `${kind} was not masked: ${String(masked)}`);
      // In a field whose name says nothing, too.
      assert.deepEqual(maskSecrets({ detail: secret }), { detail: "[masked]" }, kind);
    }
  });

  it("leaves values that only look a little like secrets alone", () => {
    const text = "query used 3 tables; see eyJ in the docs; xoxb- alone; Bearer short";
    assert.equal(maskSecrets(text), text);
  });
});

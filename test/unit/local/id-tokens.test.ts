import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { checkIdToken, mintSigningKey, signIdToken } from "../../../functions/src/local/id-tokens.js";
import { terraformSettings } from "../../../functions/src/local/terraform-settings.js";
import { loadWorkflow, runWorkflow } from "../../../workflows/runner/index.js";

/**
 * Cloud Run's admission check as the local gate makes it
 * (https://cloud.google.com/run/docs/authenticating/service-to-service): a Google-signed ID
 * token for the service's URL, unexpired, from a principal holding roles/run.invoker; and the
 * workflow runner attaching one to `auth: {type: OIDC}` requests with the URL as audience
 * (https://cloud.google.com/workflows/docs/authenticate-from-workflow#invoke_cloud_run_or).
 */
const key = mintSigningKey();
const other = mintSigningKey();
const URL_ = "http://127.0.0.1:40001";
const WORKFLOW = "ferret-workflow@ferret-local.iam.gserviceaccount.com";
const check = {
  publicKeys: { [key.kid]: key.publicKeyPem },
  audiences: [URL_],
  invokers: [`serviceAccount:${WORKFLOW}`],
};
const bearer = (token: string) => `Bearer ${token}`;

describe("the local stand-in for Cloud Run's ID-token check", () => {
  it("admits the invoker's token for the service's URL", async () => {
    assert.equal(
      await checkIdToken(bearer(signIdToken(key, { audience: URL_, email: WORKFLOW })), check),
      undefined,
    );
  });

  it("401 without a token, for another audience, expired, or signed by another key", async () => {
    const now = Math.floor(Date.now() / 1_000);
    const cases = {
      none: undefined,
      "not bearer": "Basic abc",
      "other audience": bearer(signIdToken(key, { audience: "http://127.0.0.1:40002", email: WORKFLOW })),
      "the URL with a path": bearer(signIdToken(key, { audience: `${URL_}/planner`, email: WORKFLOW })),
      expired: bearer(signIdToken(key, { audience: URL_, email: WORKFLOW, nowS: now - 7_200 })),
      "another key": bearer(signIdToken({ ...other, kid: key.kid }, { audience: URL_, email: WORKFLOW })),
      "not a JWT": bearer("local-planner-abc"),
    };
    for (const [what, authorization] of Object.entries(cases))
      assert.equal((await checkIdToken(authorization, check))?.status, 401, what);
  });

  it("403 for a valid token whose principal is not an invoker", async () => {
    const push = "ferret-pubsub-push@ferret-local.iam.gserviceaccount.com";
    const refusal = await checkIdToken(bearer(signIdToken(key, { audience: URL_, email: push })), check);
    assert.equal(refusal?.status, 403);
    assert.match(refusal?.reason ?? "", /ferret-pubsub-push/);
  });

  it("a public function (allUsers) admits anyone", async () => {
    assert.equal(await checkIdToken(undefined, { ...check, invokers: ["allUsers"] }), undefined);
  });

  it("any change to a signed token is refused", async () => {
    const token = signIdToken(key, { audience: URL_, email: WORKFLOW });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: token.length - 1 }),
        fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
        async (at, c) => {
          fc.pre(token[at] !== c && c !== ".");
          const tampered = `${token.slice(0, at)}${c}${token.slice(at + 1)}`;
          const refusal = await checkIdToken(bearer(tampered), check);
          assert.ok(refusal, `accepted a token changed at ${at}`);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("the invokers are Terraform's run.invoker grants: the workflow for the workflow-called functions, the push account for the pushed ones, anyone for slackEvents", async () => {
    const { invokers } = await terraformSettings();
    assert.deepEqual(invokers.stepExecutor, ["workflow"]);
    assert.deepEqual(invokers.ingest, ["pubsubPush"]);
    assert.deepEqual(invokers.slackEvents, ["allUsers"]);
  });
});

describe("the runner's OIDC requests", () => {
  const yaml = (auth: string) => `
main:
  steps:
    - call:
        call: http.post
        args:
          url: ${URL_}
          auth: ${auth}
        result: r
    - done:
        return: \${r.body}
`;
  async function sentAuthorization(auth: string, minter?: (audience: string) => string) {
    let seen: string | undefined;
    await runWorkflow(loadWorkflow(yaml(auth)), null, {
      env: {},
      http: async (request) => {
        seen = request.headers.Authorization;
        return { status: 200, headers: { "content-type": "application/json" }, body: "{}" };
      },
      ...(minter ? { idToken: minter } : {}),
    });
    return seen;
  }

  it("carry an ID token for the URL, or for the audience the step names", async () => {
    const audiences: string[] = [];
    const mint = (audience: string) => {
      audiences.push(audience);
      return signIdToken(key, { audience, email: WORKFLOW });
    };
    const sent = await sentAuthorization("{type: OIDC}", mint);
    assert.equal(await checkIdToken(sent, check), undefined);
    await sentAuthorization('{type: OIDC, audience: "https://custom.example"}', mint);
    // The request's URL as sent (the runner writes the root path out), then the named audience.
    assert.deepEqual(audiences, [`${URL_}/`, "https://custom.example"]);
  });

  it("carry none without auth, and refuse an audience that is not a string", async () => {
    assert.equal(await sentAuthorization("null", () => "x"), undefined);
    await assert.rejects(
      sentAuthorization("{type: OIDC, audience: 3}", () => "x"),
      /audience must be a string/,
    );
  });
});

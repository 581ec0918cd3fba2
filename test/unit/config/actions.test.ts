import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../../functions/src/config/config.js";
import { readEnvironment } from "../../../functions/src/config/environment.js";
import { ConfigError } from "../../../functions/src/domain/errors.js";

describe("actions config", () => {
  it("enables no response action by default, with the documented deny-egress tag", () => {
    const config = loadConfig({ env: {} });
    assert.deepEqual(config.actions, { enabled: [], denyEgressTag: "ferret-deny-egress" });
  });

  it("reads FERRET_ACTIONS_ENABLED and FERRET_ACTIONS_DENY_EGRESS_TAG", () => {
    const config = loadConfig({
      env: {
        FERRET_ACTIONS_ENABLED: "revoke_iam_binding, disable_service_account_key",
        FERRET_ACTIONS_DENY_EGRESS_TAG: "quarantine",
      },
    });
    assert.deepEqual(config.actions, {
      enabled: ["revoke_iam_binding", "disable_service_account_key"],
      denyEgressTag: "quarantine",
    });
  });

  it("refuses an unknown action (naming the key and the actions there are) and a tag Compute would refuse", () => {
    assert.throws(
      () => loadConfig({ env: { FERRET_ACTIONS_ENABLED: "delete_project" } }),
      (e: unknown) =>
        e instanceof ConfigError && /actions\.enabled\.0: .*"disable_service_account_key"/.test(e.message),
    );
    assert.throws(
      () => loadConfig({ env: { FERRET_ACTIONS_DENY_EGRESS_TAG: "Deny_Egress" } }),
      (e: unknown) => e instanceof ConfigError && /FERRET_ACTIONS_DENY_EGRESS_TAG/.test(e.message),
    );
  });

  it("takes a stand-in's root URL from FERRET_GOOGLEAPIS_ROOT_URL, and refuses anything but a loopback http URL", () => {
    assert.equal(
      readEnvironment({ FERRET_GOOGLEAPIS_ROOT_URL: "http://127.0.0.1:8123/" }).googleApisRootUrl,
      "http://127.0.0.1:8123/",
    );
    assert.throws(() => readEnvironment({ FERRET_GOOGLEAPIS_ROOT_URL: "127.0.0.1:8123" }), ConfigError);
    // Not a loopback stand-in: the clients would send unauthenticated calls somewhere else.
    assert.throws(
      () => readEnvironment({ FERRET_GOOGLEAPIS_ROOT_URL: "http://iam.example.org/" }),
      ConfigError,
    );
  });
});

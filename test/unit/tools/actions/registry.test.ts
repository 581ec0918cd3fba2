import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../../../functions/src/config/config.js";
import { buildToolRegistry } from "../../../../functions/src/entry/tool-registry.js";
import { startResponseActionsStandIn } from "../../../../functions/src/local/response-actions-stand-in.js";
import { silentLogger } from "../../../../functions/src/platform/logger.js";
import { geminiSchemaProblems } from "../../../../functions/src/tools/registry.js";
import { approve, context, findingFrom, GRANT, GRANT_KEY } from "./helpers.js";

const INTEL = { FERRET_STIX_BUNDLE: "examples/scenarios/cryptomining/intel/bundle.json" };

describe("response actions in the registry", () => {
  it("are absent unless enabled", async () => {
    const built = await buildToolRegistry(loadConfig({ env: INTEL }), INTEL, silentLogger);
    assert.deepEqual(built.registry.names(), ["threat_intel_lookup"]);
  });

  it("join as acting tools when enabled, and reach the stand-in named by FERRET_GOOGLEAPIS_ROOT_URL", async () => {
    const standIn = await startResponseActionsStandIn({ keys: [{ name: GRANT_KEY }] });
    try {
      const env = {
        ...INTEL,
        FERRET_ACTIONS_ENABLED: "disable_service_account_key,add_deny_egress_tag,revoke_iam_binding",
        FERRET_GOOGLEAPIS_ROOT_URL: standIn.rootUrl,
      };
      const built = await buildToolRegistry(loadConfig({ env }), env, silentLogger);
      assert.deepEqual(built.registry.names(), [
        "threat_intel_lookup",
        "disable_service_account_key",
        "add_deny_egress_tag",
        "revoke_iam_binding",
      ]);
      for (const d of built.registry.declarations())
        assert.deepEqual(geminiSchemaProblems(d.parameters), [], d.name);
      const args = { keyName: GRANT_KEY };
      const out = await built.registry.run(
        "disable_service_account_key",
        args,
        context(findingFrom(GRANT), [approve("disable_service_account_key", args)]),
      );
      assert.equal(out.ok, true, out.summary);
      assert.equal(standIn.key(GRANT_KEY)?.disabled, true);
    } finally {
      await standIn.close();
    }
  });
});

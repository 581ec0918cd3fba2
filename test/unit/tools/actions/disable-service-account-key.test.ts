import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { IamServiceAccountKeys } from "../../../../functions/src/adapters/iam/service-account-keys.js";
import {
  type ResponseActionsStandIn,
  startResponseActionsStandIn,
} from "../../../../functions/src/local/response-actions-stand-in.js";
import { createDisableServiceAccountKeyTool } from "../../../../functions/src/tools/actions/disable-service-account-key.js";
import { createToolRegistry, type ToolRegistry } from "../../../../functions/src/tools/registry.js";
import { approve, context, errorCode, findingFrom, GRANT, GRANT_KEY } from "./helpers.js";

const OTHER_KEY = "projects/acme-prod/serviceAccounts/backup@acme-prod.iam.gserviceaccount.com/keys/aaaa1111";

describe("disable_service_account_key", () => {
  let standIn: ResponseActionsStandIn;
  let registry: ToolRegistry;
  const finding = findingFrom(GRANT);
  before(async () => {
    standIn = await startResponseActionsStandIn({ keys: [{ name: GRANT_KEY }, { name: OTHER_KEY }] });
    registry = createToolRegistry([
      createDisableServiceAccountKeyTool(new IamServiceAccountKeys({ rootUrl: standIn.rootUrl })),
    ]);
  });
  after(() => standIn.close());

  it("is an acting tool whose declaration Gemini accepts", () => {
    assert.equal(registry.get("disable_service_account_key").readOnly, false);
    assert.equal(registry.declarations()[0]?.name, "disable_service_account_key");
  });

  it("refuses a malformed key name before anything is read", async () => {
    const out = await registry.run(
      "disable_service_account_key",
      { keyName: "keys/../../x" },
      context(finding),
    );
    assert.equal(out.ok, false);
    assert.equal(errorCode(out).code, "tool_input");
    assert.equal(standIn.calls.length, 0);
  });

  it("refuses a key the finding does not name, even with an approval for it, and asks nobody", async () => {
    const args = { keyName: OTHER_KEY };
    const out = await registry.run(
      "disable_service_account_key",
      args,
      context(finding, [approve("disable_service_account_key", args)]),
    );
    assert.equal(out.ok, false);
    assert.equal(out.approvalRequest, undefined);
    assert.match(errorCode(out).message, /not named by the finding/);
    assert.equal(errorCode(out).retryable, false);
    assert.equal(standIn.key(OTHER_KEY)?.disabled, undefined);
  });

  it("holds the named key's call without approval, with a preview read from the key", async () => {
    const out = await registry.run("disable_service_account_key", { keyName: GRANT_KEY }, context(finding));
    assert.equal(out.ok, false);
    assert.equal(errorCode(out).code, "approval_required");
    assert.match(
      out.approvalRequest?.preview ?? "",
      /Would disable key .*0f1e2d3c4b5a69788796a5b4c3d2e1f0.*currently enabled/,
    );
    assert.equal(standIn.key(GRANT_KEY)?.disabled, undefined, "a held call changes nothing");
  });

  it("runs under an approval of exactly this call, and says so", async () => {
    const args = { keyName: GRANT_KEY };
    const out = await registry.run(
      "disable_service_account_key",
      args,
      context(finding, [approve("disable_service_account_key", args)]),
    );
    assert.equal(out.ok, true, out.summary);
    assert.equal(out.approvedBy?.decidedBy, "U0APPROVER");
    assert.equal(standIn.key(GRANT_KEY)?.disabled, true);
    const again = await registry.run(
      "disable_service_account_key",
      args,
      context(finding, [approve("disable_service_account_key", args)]),
    );
    assert.match(again.summary, /already disabled; nothing changed/);
    assert.deepEqual(
      standIn.calls.filter((c) => c.path.endsWith(":disable")).length,
      1,
      "an already disabled key is not disabled twice",
    );
  });

  it("an approval from another investigation does not license the call", async () => {
    const args = { keyName: GRANT_KEY };
    const out = await registry.run(
      "disable_service_account_key",
      args,
      context(finding, [approve("disable_service_account_key", args, "inv-other")]),
    );
    assert.equal(errorCode(out).code, "approval_required");
  });
});

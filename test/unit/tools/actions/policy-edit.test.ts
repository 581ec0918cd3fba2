import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IamPolicy } from "../../../../functions/src/ports/response-actions.js";
import { removeMember } from "../../../../functions/src/tools/actions/policy-edit.js";

const condition = { expression: "request.time < timestamp('2030-01-01T00:00:00Z')", title: "temporary" };
const policy: IamPolicy = {
  version: 3,
  etag: "BwXabc",
  bindings: [
    { role: "roles/owner", members: ["user:a@x.org"] },
    { role: "roles/editor", members: ["user:m@x.org"] },
    { role: "roles/owner", members: ["user:m@x.org"], condition },
  ],
  rest: { auditConfigs: [{ service: "allServices" }] },
};

describe("removeMember", () => {
  it("drops a binding left empty and keeps the etag, the version and the rest for the conditional write", () => {
    const r = removeMember(policy, "roles/editor", "user:m@x.org");
    assert.ok(r.ok);
    assert.deepEqual(r.policy, { ...policy, bindings: [policy.bindings[0], policy.bindings[2]] });
  });

  it("leaves a conditional grant to a person", () => {
    const r = removeMember(policy, "roles/owner", "user:m@x.org");
    assert.deepEqual(r, {
      ok: false,
      unchanged: false,
      reason:
        "user:m@x.org holds roles/owner only under a condition; ferret leaves conditional grants to a person",
    });
  });

  it("refuses the last unconditional owner (a conditional owner does not count)", () => {
    const r = removeMember(policy, "roles/owner", "user:a@x.org");
    assert.equal(r.ok, false);
    assert.match(r.ok ? "" : r.reason, /last owner/);
  });
});

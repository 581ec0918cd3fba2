import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Approval,
  approvalFor,
  callDigest,
  canonicalJson,
} from "../../../functions/src/domain/approval.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { ToolContext } from "../../../functions/src/tools/port.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { sccFinding } from "../../fixtures/scc.js";
import { countingActingTool, readOnlyEcho } from "./support.js";

const ARGS = { project: "acme-prod", keyId: "k-123" };
const ctx = (approvals?: Approval[]): ToolContext => ({
  investigationId: "inv-1",
  finding: sccFinding("v1-cryptominer"),
  logger: silentLogger,
  stepId: "contain",
  ...(approvals ? { approvals } : {}),
});
const decision = (over: Partial<Approval> = {}, args: JsonObject = ARGS): Approval => ({
  investigationId: "inv-1",
  tool: "disable_service_account_key",
  argsDigest: callDigest(over.tool ?? "disable_service_account_key", args),
  decision: "approved",
  decidedBy: "U0APPROVER",
  decidedAt: "2026-11-25T10:00:00.000Z",
  ...over,
});

describe("call digests", () => {
  it("do not depend on key order, and differ for different arguments or tools", () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } }),
      '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    assert.equal(callDigest("t", { a: 1, b: 2 }), callDigest("t", { b: 2, a: 1 }));
    assert.notEqual(callDigest("t", { a: 1 }), callDigest("t", { a: 2 }));
    assert.notEqual(callDigest("t", { a: 1 }), callDigest("u", { a: 1 }));
  });

  it("an approval covers only its own investigation, tool and arguments, and only when approved", () => {
    const ok = decision();
    assert.equal(approvalFor([ok], "inv-1", "disable_service_account_key", ARGS), ok);
    assert.equal(approvalFor([ok], "inv-2", "disable_service_account_key", ARGS), undefined);
    assert.equal(
      approvalFor([ok], "inv-1", "disable_service_account_key", { ...ARGS, keyId: "k-9" }),
      undefined,
    );
    assert.equal(
      approvalFor([decision({ decision: "denied" })], "inv-1", "disable_service_account_key", ARGS),
      undefined,
    );
    assert.equal(
      approvalFor([decision({ decision: "timed_out" })], "inv-1", "disable_service_account_key", ARGS),
      undefined,
    );
    assert.equal(approvalFor(undefined, "inv-1", "disable_service_account_key", ARGS), undefined);
  });
});

describe("the registry's approval gate", () => {
  it("holds an acting call without an approval: nothing runs, the request names the exact call with its dry run", async () => {
    const acting = countingActingTool();
    const registry = createToolRegistry([acting.tool]);
    const out = await registry.run("disable_service_account_key", ARGS, ctx());
    assert.equal(acting.runs.length, 0);
    assert.equal(out.ok, false);
    assert.deepEqual(
      (out.data as { error: { code: string; retryable: boolean } }).error.code,
      "approval_required",
    );
    assert.equal((out.data as { error: { retryable: boolean } }).error.retryable, false);
    assert.deepEqual(out.approvalRequest, {
      investigationId: "inv-1",
      stepId: "contain",
      tool: "disable_service_account_key",
      args: ARGS,
      argsDigest: callDigest("disable_service_account_key", ARGS),
      preview: "would disable key k-123 in acme-prod",
    });
    assert.equal(acting.previews.length, 1);
  });

  it("does not run under a denial, a timeout, another call's approval or another investigation's", async () => {
    const acting = countingActingTool();
    const registry = createToolRegistry([acting.tool]);
    const refusedUnder: Approval[][] = [
      [decision({ decision: "denied" })],
      [decision({ decision: "timed_out", decidedBy: "timeout" })],
      [decision({}, { ...ARGS, keyId: "another-key" })],
      [decision({ investigationId: "inv-other" })],
      [decision({ tool: "add_deny_egress_tag" })],
    ];
    for (const approvals of refusedUnder) {
      const out = await registry.run("disable_service_account_key", ARGS, ctx(approvals));
      assert.equal(out.ok, false, JSON.stringify(approvals));
      assert.ok(out.approvalRequest);
    }
    assert.equal(acting.runs.length, 0);
  });

  it("runs the call once it is approved, and says who approved it", async () => {
    const acting = countingActingTool();
    const registry = createToolRegistry([acting.tool]);
    const approved = decision();
    // Same arguments in another key order: the digest is canonical.
    const out = await registry.run(
      "disable_service_account_key",
      { keyId: "k-123", project: "acme-prod" },
      ctx([approved]),
    );
    assert.equal(out.ok, true);
    assert.deepEqual(acting.runs, [ARGS]);
    assert.deepEqual(out.approvedBy, approved);
    assert.equal(out.approvalRequest, undefined);
  });

  it("checks the approval against validated arguments: bad arguments never reach the gate's run", async () => {
    const acting = countingActingTool();
    const registry = createToolRegistry([acting.tool]);
    const out = await registry.run(
      "disable_service_account_key",
      { project: "" },
      ctx([decision({}, { project: "" })]),
    );
    assert.equal(out.ok, false);
    assert.equal((out.data as { error: { code: string } }).error.code, "tool_input");
    assert.equal(acting.runs.length, 0);
  });

  it("runs a read-only tool without any approval", async () => {
    const registry = createToolRegistry([readOnlyEcho()]);
    const out = await registry.run("echo_read", { text: "hi" }, ctx());
    assert.equal(out.ok, true);
    assert.equal(out.approvalRequest, undefined);
  });

  it("the toolbox counts held calls, so a run can report how many waited for a person", async () => {
    const acting = countingActingTool();
    const box = new ToolBox(createToolRegistry([acting.tool, readOnlyEcho()]), () => true);
    await box.run("echo_read", { text: "x" }, ["echo_read", "disable_service_account_key"], ctx());
    await box.run("disable_service_account_key", ARGS, ["echo_read", "disable_service_account_key"], ctx());
    assert.equal(box.held.length, 1);
    assert.equal(box.held[0]?.tool, "disable_service_account_key");
    assert.equal(acting.runs.length, 0);
  });

  it("a dry run that throws is reported in the request, and still nothing acts", async () => {
    const acting = countingActingTool();
    const broken = {
      ...acting.tool,
      preview: async () => Promise.reject(new Error("no permission to read the key")),
    };
    const registry = createToolRegistry([broken]);
    const out = await registry.run("disable_service_account_key", ARGS, ctx());
    assert.match(out.approvalRequest?.preview ?? "", /dry run failed: no permission to read the key/);
    assert.equal(acting.runs.length, 0);
  });
});

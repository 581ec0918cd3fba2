import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { approvalRequest } from "../../../functions/src/domain/approval.js";
import {
  type ApprovalRecord,
  approvalIdFor,
  approvalOf,
  heldCalls,
  withApprovalOutcomes,
} from "../../../functions/src/domain/approval-record.js";
import type { ToolCall } from "../../../functions/src/domain/results.js";

const INV = "inv-0123456789abcdef01234567";
const request = (value: string) =>
  approvalRequest(INV, "mcp.assets.set_asset_label", { name: "a", value }, { stepId: "s1" });

function call(value: string): ToolCall {
  return {
    id: `c-${value}`,
    name: "mcp.assets.set_asset_label",
    args: { name: "a", value },
    ok: false,
    summary: "held",
    data: null,
    durationMs: 0,
    approvalRequest: request(value),
  };
}

function rec(status: ApprovalRecord["status"], extra: Partial<ApprovalRecord> = {}): ApprovalRecord {
  const r = request(status);
  return {
    approvalId: approvalIdFor(INV, "s1", r.argsDigest),
    stepId: "s1",
    request: r,
    status,
    requestedAt: "2026-11-25T10:00:00.000Z",
    callbackUrl: "http://127.0.0.1:1/callbacks/x",
    ...extra,
  };
}

describe("approval records", () => {
  it("one id per step and exact call: the same call asked twice is one request, other arguments another", () => {
    const held = heldCalls({ stepId: "s1", toolCalls: [call("on"), call("on"), call("off")] }, INV);
    assert.equal(held.length, 2);
    assert.match(held[0]?.approvalId ?? "", /^apr-[a-f0-9]{24}$/);
    assert.notEqual(held[0]?.approvalId, held[1]?.approvalId);
    assert.equal(held[0]?.approvalId, approvalIdFor(INV, "s1", request("on").argsDigest));
    assert.notEqual(approvalIdFor(INV, "s2", request("on").argsDigest), held[0]?.approvalId);
  });

  it("only a decided record is a decision the tool layer sees; a pending one is none", () => {
    assert.equal(approvalOf(rec("pending")), undefined);
    const approved = approvalOf(
      rec("approved", { decidedBy: { id: "U0APPROVER" }, decidedAt: "2026-11-25T10:01:00.000Z" }),
    );
    assert.equal(approved?.decision, "approved");
    assert.equal(approved?.decidedBy, "U0APPROVER");
    assert.equal(
      approvalOf(rec("timed_out", { decidedAt: "2026-11-25T10:15:00.000Z" }))?.decidedBy,
      "timeout",
    );
  });

  it("the conclusion records every outcome and says which calls did not run and why", () => {
    const conclusion = withApprovalOutcomes({ openQuestions: ["q1"] }, [
      rec("approved", {
        decidedBy: { id: "U0APPROVER" },
        decidedAt: "2026-11-25T10:01:00.000Z",
        result: { ok: true, summary: "done", ranAt: "2026-11-25T10:01:02.000Z" },
      }),
      rec("denied", { decidedBy: { id: "U0OTHER" }, decidedAt: "2026-11-25T10:02:00.000Z" }),
      rec("timed_out", { decidedAt: "2026-11-25T10:15:00.000Z" }),
    ]);
    assert.deepEqual(
      conclusion.approvals?.map((a) => [a.outcome, a.decidedBy?.id]),
      [
        ["ran", "U0APPROVER"],
        ["denied", "U0OTHER"],
        ["timed_out", undefined],
      ],
    );
    assert.equal(conclusion.openQuestions.length, 3);
    assert.match(conclusion.openQuestions[0] ?? "", /was not run: U0OTHER denied it/);
    assert.match(conclusion.openQuestions[1] ?? "", /nobody approved it before the approval timeout/);
    assert.equal(conclusion.openQuestions[2], "q1");
    assert.deepEqual(withApprovalOutcomes({ openQuestions: [] }, undefined), { openQuestions: [] });
  });
});

import { ApprovalRequestSchema } from "../domain/approval.js";
import {
  type ApprovalRecord,
  approvalIdFor,
  approvalOf,
  approvalOutcome,
  MAX_APPROVALS_PER_INVESTIGATION,
} from "../domain/approval-record.js";
import { NotFoundError } from "../domain/errors.js";
import type { Investigation } from "../domain/investigation.js";
import type { AppDeps } from "./deps.js";
import { publishEvents } from "./publish.js";

/**
 * The responder's two operations, called by the workflow around its pause on a callback:
 * `request` records the held call with the callback URL and announces it (the notifier posts
 * Approve / Deny); `settle`, after the callback arrived or the wait timed out, reads the
 * record (the record decides, never the callback's body), marks a still-pending request timed
 * out, and runs an approved call exactly once, through the tool registry with its approval.
 */

export type RequestAnswer = {
  approvalId: string;
  /** `over_limit`: the investigation already waits on the most approvals it may; not asked. */
  status: ApprovalRecord["status"] | "over_limit";
};

function replaced(inv: Investigation, record: ApprovalRecord): ApprovalRecord[] {
  return (inv.approvals ?? []).map((a) => (a.approvalId === record.approvalId ? record : a));
}

function find(inv: Investigation, approvalId: string): ApprovalRecord | undefined {
  return inv.approvals?.find((a) => a.approvalId === approvalId);
}

async function republishFor(deps: AppDeps, id: string, approvalId: string): Promise<void> {
  const events = (await deps.store.listEvents(id)).filter((e) => e.message.startsWith(`${approvalId}:`));
  await publishEvents(deps.bus, events);
}

export async function requestApproval(
  input: { investigationId: string; stepId: string; approvalId: string; callbackUrl: string },
  deps: AppDeps,
): Promise<RequestAnswer> {
  const { investigationId: id, stepId, approvalId } = input;
  const inv = await deps.store.require(id);
  const existing = find(inv, approvalId);
  if (existing) {
    await republishFor(deps, id, approvalId);
    return { approvalId, status: existing.status };
  }
  const result = await deps.store.getStepResult(id, stepId);
  if (!result) throw new NotFoundError(`investigation ${id} has no result for step ${stepId}`);
  const held = result.toolCalls.find(
    (c) => c.approvalRequest && approvalIdFor(id, stepId, c.approvalRequest.argsDigest) === approvalId,
  )?.approvalRequest;
  if (!held) throw new NotFoundError(`step ${stepId} of ${id} holds no call ${approvalId}`);
  // The dry run is read again here, by the responder: its identity holds the read permissions
  // the preview needs (the step executor's does not), and the person sees the target as it is
  // now. The step executor's attempt stays when the tool offers no preview here.
  const preview = await deps.toolbox.preview(held.tool, held.args, {
    investigationId: id,
    finding: inv.finding,
    logger: deps.logger.child({ investigationId: id, approvalId, tool: held.tool }),
    stepId,
  });
  const record: ApprovalRecord = {
    approvalId,
    stepId,
    request: ApprovalRequestSchema.parse({
      ...held,
      investigationId: id,
      stepId,
      ...(preview ? { preview: preview.slice(0, 2_000) } : {}),
    }),
    status: "pending",
    requestedAt: deps.now().toISOString(),
    callbackUrl: input.callbackUrl,
  };
  let overLimit = false;
  const committed = await deps.store.update(id, (current) => {
    if (find(current, approvalId)) return undefined;
    overLimit = (current.approvals?.length ?? 0) >= MAX_APPROVALS_PER_INVESTIGATION;
    if (overLimit) return undefined;
    return {
      investigation: {
        ...current,
        approvals: [...(current.approvals ?? []), record],
        updatedAt: deps.now().toISOString(),
      },
      events: [
        {
          type: "approval_requested",
          stepId,
          message: `${approvalId}: step ${stepId} asks to run ${record.request.tool}; it waits for a person's approval`,
        },
      ],
    };
  });
  await publishEvents(deps.bus, committed.events);
  if (overLimit) {
    deps.logger.warn("acting call not offered for approval: too many approvals in this investigation", {
      approvalId,
      limit: MAX_APPROVALS_PER_INVESTIGATION,
    });
    return { approvalId, status: "over_limit" };
  }
  return { approvalId, status: find(committed.investigation, approvalId)?.status ?? "pending" };
}

export type SettleAnswer = {
  approvalId: string;
  outcome: ReturnType<typeof approvalOutcome>["outcome"] | "not_requested";
};

/** Claims the one run of an approved call; a second settle (a retry) never acts twice. */
export const ACTION_RUN_SCOPE = "approved-action-run";

export async function settleApproval(
  input: { investigationId: string; approvalId: string },
  deps: AppDeps,
): Promise<SettleAnswer> {
  const { investigationId: id, approvalId } = input;
  let inv = await deps.store.require(id);
  let record = find(inv, approvalId);
  if (!record) return { approvalId, outcome: "not_requested" };
  if (record.status === "pending") {
    const committed = await deps.store.update(id, (current) => {
      const r = find(current, approvalId);
      if (r?.status !== "pending") return undefined;
      return {
        investigation: {
          ...current,
          approvals: replaced(current, { ...r, status: "timed_out", decidedAt: deps.now().toISOString() }),
          updatedAt: deps.now().toISOString(),
        },
        events: [
          {
            type: "approval_decided",
            stepId: r.stepId,
            message: `${approvalId}: nobody approved ${r.request.tool} in time; the investigation continues without it`,
          },
        ],
      };
    });
    await publishEvents(deps.bus, committed.events);
    inv = committed.investigation;
    record = find(inv, approvalId) ?? record;
  }
  if (record.status === "approved" && !record.result) record = await runApproved(inv, record, deps);
  return { approvalId, outcome: approvalOutcome(record).outcome };
}

async function runApproved(
  inv: Investigation,
  record: ApprovalRecord,
  deps: AppDeps,
): Promise<ApprovalRecord> {
  const approval = approvalOf(record);
  if (!approval) return record;
  const { tool, args } = record.request;
  const first = await deps.store.claimOnce(ACTION_RUN_SCOPE, record.approvalId, {
    at: deps.now().toISOString(),
  });
  // An earlier settle claimed the run and died before recording it: the action may have run.
  // Running it again could act twice; say so instead.
  const output = first
    ? await deps.toolbox.run(tool, args, [tool], {
        investigationId: inv.id,
        finding: inv.finding,
        logger: deps.logger.child({ investigationId: inv.id, approvalId: record.approvalId, tool }),
        stepId: record.stepId,
        approvals: [approval],
      })
    : {
        ok: false,
        summary: "an earlier attempt started this call and did not record its result; it is not run twice",
      };
  const ranAt = deps.now().toISOString();
  const result = { ok: output.ok, summary: output.summary.slice(0, 1_000), ranAt };
  const committed = await deps.store.update(inv.id, (current) => {
    const r = find(current, record.approvalId);
    if (!r || r.result) return undefined;
    return {
      investigation: { ...current, approvals: replaced(current, { ...r, result }), updatedAt: ranAt },
      events: [
        {
          type: "action_ran",
          stepId: r.stepId,
          message: `${r.approvalId}: ${tool} ${output.ok ? "ran" : "failed"} after ${r.decidedBy?.id ?? "someone"}'s approval`,
        },
      ],
    };
  });
  await publishEvents(deps.bus, committed.events);
  return find(committed.investigation, record.approvalId) ?? { ...record, result };
}

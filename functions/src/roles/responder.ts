import { z } from "zod";
import { requestApproval, settleApproval } from "../app/approval-responder.js";
import { ApprovalIdSchema, ApprovalOutcomeSchema, ApprovalStatusSchema } from "../domain/approval-record.js";
import { workflowRoleDefinition } from "./role.js";
import { InvestigationRefSchema } from "./workflow-requests.js";

/**
 * The responder's two calls around the workflow's pause on a callback (docs/decisions/0031):
 * `request` records a held acting call and its callback URL; `settle` runs or closes it once
 * the callback came or the wait timed out (app/approval-responder.ts).
 */
export const responder = workflowRoleDefinition({
  name: "responder",
  // Approved acting calls run through the tool registry (MCP servers, response actions).
  needs: { tools: true, chat: false },
  request: z.discriminatedUnion("operation", [
    InvestigationRefSchema.extend({
      operation: z.literal("request"),
      stepId: z.string().min(1).max(40),
      approvalId: ApprovalIdSchema,
      callbackUrl: z.url().max(2_000),
    }),
    InvestigationRefSchema.extend({
      operation: z.literal("settle"),
      approvalId: ApprovalIdSchema,
    }),
  ]),
  response: z.union([
    z.object({
      approvalId: z.string(),
      /** `over_limit`: the investigation already waits on the most approvals it may; not asked. */
      status: z.union([ApprovalStatusSchema, z.literal("over_limit")]),
    }),
    z.object({
      approvalId: z.string(),
      outcome: z.union([ApprovalOutcomeSchema.shape.outcome, z.literal("not_requested")]),
    }),
  ]),
  run: async (input, deps) =>
    input.operation === "request" ? requestApproval(input, deps) : settleApproval(input, deps),
});

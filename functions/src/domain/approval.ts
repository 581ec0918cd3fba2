import { createHash } from "node:crypto";
import { z } from "zod";
import { type JsonObject, JsonObjectSchema, type JsonValue } from "./json.js";

/**
 * A person's decision about one acting tool call. An acting tool (one that changes something
 * outside ferret: disables a key, tags an instance, calls an MCP server's write tool) runs
 * only when the tool layer holds an approved decision for exactly that call: the same
 * investigation, the same tool and the same arguments, compared by digest. The arguments a
 * person saw are the arguments that run.
 */

/** Canonical JSON: object keys sorted at every level, so equal arguments have equal text. */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as JsonValue)}`).join(",")}}`;
}

/** sha256 of the tool name and its canonical arguments: what an approval is bound to. */
export function callDigest(tool: string, args: JsonObject): string {
  return createHash("sha256").update(canonicalJson({ tool, args })).digest("hex");
}

const DigestSchema = z.string().regex(/^[0-9a-f]{64}$/, "a sha256 hex digest");

/** What the tool layer answers instead of running an acting call it holds no approval for. */
export const ApprovalRequestSchema = z.object({
  investigationId: z.string().min(1),
  stepId: z.string().min(1).optional(),
  tool: z.string().min(1).max(64),
  args: JsonObjectSchema,
  argsDigest: DigestSchema,
  /** A dry-run preview from the tool, when it has one: what would change, read before acting. */
  preview: z.string().max(2_000).optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

export const ApprovalDecisionKindSchema = z.enum(["approved", "denied", "timed_out"]);
export type ApprovalDecisionKind = z.infer<typeof ApprovalDecisionKindSchema>;

export const ApprovalSchema = z.object({
  investigationId: z.string().min(1),
  tool: z.string().min(1).max(64),
  argsDigest: DigestSchema,
  decision: ApprovalDecisionKindSchema,
  /** Who decided: a Slack user id, or "timeout" when nobody did in time. */
  decidedBy: z.string().min(1).max(100),
  decidedAt: z.iso.datetime(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

export function approvalRequest(
  investigationId: string,
  tool: string,
  args: JsonObject,
  extra: { stepId?: string; preview?: string } = {},
): ApprovalRequest {
  return {
    investigationId,
    ...(extra.stepId ? { stepId: extra.stepId } : {}),
    tool,
    args,
    argsDigest: callDigest(tool, args),
    ...(extra.preview ? { preview: extra.preview.slice(0, 2_000) } : {}),
  };
}

/**
 * The approved decision that covers this exact call, if any. Denials and timeouts never
 * cover a call, and a decision for other arguments (or another investigation) does not
 * either: an approval is not a licence for the tool.
 */
export function approvalFor(
  approvals: readonly Approval[] | undefined,
  investigationId: string,
  tool: string,
  args: JsonObject,
): Approval | undefined {
  if (!approvals || approvals.length === 0) return undefined;
  const digest = callDigest(tool, args);
  return approvals.find(
    (a) =>
      a.decision === "approved" &&
      a.investigationId === investigationId &&
      a.tool === tool &&
      a.argsDigest === digest,
  );
}

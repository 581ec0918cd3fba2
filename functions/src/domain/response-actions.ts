import { z } from "zod";

/**
 * ferret's built-in response actions: acting tools that run only under a person's approval of
 * the exact call (domain/approval.ts), each on a target the finding itself names.
 */
export const ACTION_TOOLS = [
  "disable_service_account_key",
  "add_deny_egress_tag",
  "revoke_iam_binding",
] as const;
export const ActionToolSchema = z.enum(ACTION_TOOLS);
export type ActionTool = z.infer<typeof ActionToolSchema>;

export function isActionTool(name: string): name is ActionTool {
  return (ACTION_TOOLS as readonly string[]).includes(name);
}

/** A service-account key's resource name, as keys.get and keys.disable take it. */
export const KEY_NAME = /^projects\/[^/\s]{1,100}\/serviceAccounts\/[^/\s]{1,200}\/keys\/[0-9a-f]{1,64}$/;
/** Compute project ids, zones and instance names (or numeric ids) are RFC 1035 labels. */
export const PROJECT_ID = /^[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;
export const ZONE = /^[a-z]+-[a-z]+[0-9]+-[a-z]$/;
export const INSTANCE = /^([a-z]([-a-z0-9]{0,61}[a-z0-9])?|[0-9]{1,20})$/;
/** Roles ferret may name: predefined (roles/…) or custom (projects/… or organizations/…/roles/…). */
export const ROLE =
  /^(roles\/[A-Za-z0-9_.]{1,100}|(projects|organizations)\/[a-z0-9-]{1,63}\/roles\/[A-Za-z0-9_.]{1,64})$/;
/** IAM principal identifiers an allow policy binds (user:, serviceAccount:, group:, domain:, principal…). */
export const MEMBER =
  /^(user|serviceAccount|group|domain|principal|principalSet|deleted:user|deleted:serviceAccount|deleted:group):[^\s]{1,300}$/;

/**
 * The arguments of a recommended action's link: one flat object of optional strings, so the
 * concluder's response schema stays one Gemini accepts; each tool's own schema checks them.
 */
export const ActionLinkSchema = z.object({
  tool: ActionToolSchema,
  args: z.object({
    keyName: z.string().max(400).optional(),
    project: z.string().max(100).optional(),
    zone: z.string().max(100).optional(),
    instance: z.string().max(100).optional(),
    role: z.string().max(200).optional(),
    member: z.string().max(320).optional(),
  }),
});
export type ActionLink = z.infer<typeof ActionLinkSchema>;

/** One line naming the exact call, e.g. `revoke_iam_binding(project=…, role=…, member=…)`. */
export function actionCallText(link: ActionLink): string {
  const args = Object.entries(link.args)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`);
  return `${link.tool}(${args.join(", ")})`;
}

/** How a linked recommendation is offered to a person, in Slack and on the terminal alike. */
export const ACTION_LINK_LEAD = "ferret can do this with approval:";

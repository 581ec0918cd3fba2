import { z } from "zod";
import { MEMBER, ROLE } from "../../domain/response-actions.js";
import type { ProjectIamPolicies } from "../../ports/response-actions.js";
import { type AnyTool, defineTool } from "../port.js";
import { ActionRefusedError } from "./errors.js";
import { removeMember } from "./policy-edit.js";
import { namedBindings } from "./targets.js";

const NAME = "revoke_iam_binding";

const InputSchema = z.object({
  project: z
    .string()
    .regex(/^projects\/[a-z0-9-]{1,63}$/, "projects/<project id or number>")
    .describe("The project the finding is about, as projects/<id or number>."),
  role: z.string().regex(ROLE).describe("The role of the grant the finding reports, e.g. roles/owner."),
  member: z
    .string()
    .regex(MEMBER)
    .describe("The member the finding reports as granted, e.g. user:someone@example.com."),
});

/**
 * Removes exactly one member from one role on a project (Resource Manager getIamPolicy, then
 * setIamPolicy with the etag it read, so a concurrent change fails with 409 instead of being
 * overwritten). Only a grant the finding reports as added, never the last owner.
 */
export function createRevokeIamBindingTool(policies: ProjectIamPolicies): AnyTool {
  return defineTool({
    name: NAME,
    readOnly: false,
    description:
      "Revoke the IAM grant this finding reports (one member from one role on the finding's project). " +
      "Acting: runs only after a person approves the exact call. Refuses grants the finding does not name and the project's last owner.",
    input: InputSchema,
    checkTarget(input, ctx) {
      const named = namedBindings(ctx.finding);
      const same = named.some(
        (b) => b.project === input.project && b.role === input.role && b.member === input.member,
      );
      if (!same)
        throw new ActionRefusedError(
          NAME,
          `${input.member} in ${input.role} on ${input.project} is not a grant the finding reports (it reports ${
            named.length > 0
              ? named.map((b) => `${b.member} in ${b.role} on ${b.project}`).join("; ")
              : "no project grant"
          })`,
        );
    },
    async preview(input) {
      const policy = await policies.get(input.project);
      const removal = removeMember(policy, input.role, input.member);
      if (!removal.ok)
        return removal.unchanged
          ? `Nothing would change: ${removal.reason}.`
          : `Would refuse: ${removal.reason}.`;
      return `Would remove ${input.member} from ${input.role} on ${input.project} (etag ${policy.etag}): members [${removal.before.join(", ")}] → [${removal.after.join(", ")}].`;
    },
    async run(input) {
      const policy = await policies.get(input.project);
      const removal = removeMember(policy, input.role, input.member);
      if (!removal.ok) {
        if (!removal.unchanged) throw new ActionRefusedError(NAME, removal.reason);
        return {
          ok: true,
          summary: `Nothing changed: ${removal.reason}.`,
          data: { ...input, changed: false },
        };
      }
      const written = await policies.set(input.project, removal.policy);
      return {
        ok: true,
        summary: `Removed ${input.member} from ${input.role} on ${input.project}.`,
        data: { ...input, changed: true, before: removal.before, after: removal.after, etag: written.etag },
      };
    },
  });
}

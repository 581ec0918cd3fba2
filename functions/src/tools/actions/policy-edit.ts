import type { IamPolicy } from "../../ports/response-actions.js";

const OWNER = "roles/owner";

export type MemberRemoval =
  | { ok: true; policy: IamPolicy; before: string[]; after: string[] }
  | { ok: false; unchanged: true; reason: string }
  | { ok: false; unchanged: false; reason: string };

/**
 * The policy with one member taken out of one role's unconditional binding, and nothing else
 * touched (conditional bindings, other roles, audit configs, the etag that makes the write
 * conditional). A conditional grant is left to a person: ferret cannot tell which of several
 * conditions the finding meant. Removing the last unconditional owner is refused: a project
 * nobody owns needs Google support to recover.
 */
export function removeMember(policy: IamPolicy, role: string, member: string): MemberRemoval {
  const plain = policy.bindings.find((b) => b.role === role && !b.condition);
  if (!plain?.members.includes(member)) {
    const conditional = policy.bindings.some(
      (b) => b.role === role && b.condition && b.members.includes(member),
    );
    return conditional
      ? {
          ok: false,
          unchanged: false,
          reason: `${member} holds ${role} only under a condition; ferret leaves conditional grants to a person`,
        }
      : { ok: false, unchanged: true, reason: `${member} does not hold ${role}` };
  }
  const after = plain.members.filter((m) => m !== member);
  const bindings = policy.bindings
    .map((b) => (b === plain ? { ...b, members: after } : b))
    .filter((b) => b.members.length > 0);
  if (role === OWNER) {
    const owners = bindings.filter((b) => b.role === OWNER && !b.condition).flatMap((b) => b.members);
    if (owners.length === 0)
      return {
        ok: false,
        unchanged: false,
        reason: `${member} is the project's last owner; removing it would leave the project without one`,
      };
  }
  return { ok: true, policy: { ...policy, bindings }, before: plain.members, after };
}

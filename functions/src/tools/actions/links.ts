import type { ConclusionDraft } from "../../domain/conclusion.js";
import type { Finding } from "../../domain/finding/finding.js";
import type { Plan } from "../../domain/plan.js";
import { type ActionLink, type ActionTool, isActionTool } from "../../domain/response-actions.js";
import { namedBindings, namedInstance, namedKeys } from "./targets.js";

type Recommendation = ConclusionDraft["recommendedActions"][number];

/**
 * The call that carries out `tool` on this finding, when the finding names exactly one target
 * for it. Two named keys (or grants) would make the choice a guess, so there is no link then.
 */
export function linkFor(tool: ActionTool, finding: Finding): ActionLink | undefined {
  switch (tool) {
    case "disable_service_account_key": {
      const keys = namedKeys(finding);
      return keys.length === 1 ? { tool, args: { keyName: keys[0]! } } : undefined;
    }
    case "add_deny_egress_tag": {
      const t = namedInstance(finding);
      return t ? { tool, args: { project: t.project, zone: t.zone, instance: t.instance } } : undefined;
    }
    case "revoke_iam_binding": {
      const bindings = namedBindings(finding);
      const b = bindings.length === 1 ? bindings[0] : undefined;
      return b ? { tool, args: { project: b.project, role: b.role, member: b.member } } : undefined;
    }
  }
}

function sameArgs(a: ActionLink["args"], b: ActionLink["args"]): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof ActionLink["args"]>;
  return [...keys].every((k) => a[k] === b[k]);
}

/** The response actions this investigation's registry offered: the tools its plan's steps name. */
export function offeredActions(plan: Pick<Plan, "steps">): Set<ActionTool> {
  return new Set(plan.steps.flatMap((s) => s.tools).filter(isActionTool));
}

/**
 * Recommendations with only the links that hold: the tool was offered (enabled here) and the
 * arguments are exactly the call linkFor derives from the finding. A model's link to anything
 * else (another key, another member) is dropped; the recommendation's text stays.
 */
export function checkedLinks(
  actions: readonly Recommendation[],
  finding: Finding,
  offered: ReadonlySet<ActionTool>,
): Recommendation[] {
  return actions.map((a) => {
    if (!a.link) return a;
    const { link, ...rest } = a;
    const expected = offered.has(link.tool) ? linkFor(link.tool, finding) : undefined;
    return expected && sameArgs(expected.args, link.args) ? { ...rest, link: expected } : rest;
  });
}

import type { ActionTool } from "../../domain/response-actions.js";
import type { InstanceTags, ProjectIamPolicies, ServiceAccountKeys } from "../../ports/response-actions.js";
import type { AnyTool } from "../port.js";
import { createAddDenyEgressTagTool } from "./add-deny-egress-tag.js";
import { createDisableServiceAccountKeyTool } from "./disable-service-account-key.js";
import { createRevokeIamBindingTool } from "./revoke-iam-binding.js";

export interface ActionPorts {
  keys: () => ServiceAccountKeys;
  tags: () => InstanceTags;
  policies: () => ProjectIamPolicies;
}

/** The enabled response actions, in the order the config lists them; each port is built only when its action is enabled. */
export function createActionTools(
  enabled: readonly ActionTool[],
  ports: ActionPorts,
  options: { denyEgressTag: string },
): AnyTool[] {
  const build: Record<ActionTool, () => AnyTool> = {
    disable_service_account_key: () => createDisableServiceAccountKeyTool(ports.keys()),
    add_deny_egress_tag: () => createAddDenyEgressTagTool(ports.tags(), { tag: options.denyEgressTag }),
    revoke_iam_binding: () => createRevokeIamBindingTool(ports.policies()),
  };
  return [...new Set(enabled)].map((name) => build[name]());
}

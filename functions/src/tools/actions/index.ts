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
  return [...new Set(enabled)].map((name) => {
    switch (name) {
      case "disable_service_account_key":
        return createDisableServiceAccountKeyTool(ports.keys());
      case "add_deny_egress_tag":
        return createAddDenyEgressTagTool(ports.tags(), { tag: options.denyEgressTag });
      case "revoke_iam_binding":
        return createRevokeIamBindingTool(ports.policies());
    }
  });
}

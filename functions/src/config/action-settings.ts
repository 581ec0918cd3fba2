import { z } from "zod";
import { ActionToolSchema } from "../domain/response-actions.js";

/**
 * ferret's built-in response actions (tools/actions/). None is enabled by default: an acting
 * tool joins the tool registry only when named here, and even then runs only under a person's
 * approval of the exact call.
 */
export const ActionsConfigSchema = z.strictObject({
  enabled: z.array(ActionToolSchema).default([]),
  /**
   * The network tag add_deny_egress_tag adds; Terraform's deny-all-egress firewall rule
   * (terraform/response-actions.tf) targets the same tag. A Compute network tag is an RFC 1035 label.
   */
  denyEgressTag: z
    .string()
    .regex(
      /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/,
      "a network tag: lowercase letters, digits and dashes, 63 at most",
    )
    .default("ferret-deny-egress"),
});

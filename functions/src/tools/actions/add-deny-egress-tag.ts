import { z } from "zod";
import { INSTANCE, PROJECT_ID, ZONE } from "../../domain/response-actions.js";
import type { InstanceTags } from "../../ports/response-actions.js";
import { type AnyTool, defineTool } from "../port.js";
import { ActionRefusedError } from "./errors.js";
import { namedInstance } from "./targets.js";

const NAME = "add_deny_egress_tag";

const InputSchema = z.object({
  project: z
    .string()
    .regex(PROJECT_ID)
    .describe("The instance's project id, from the finding's resource name."),
  zone: z.string().regex(ZONE).describe("The instance's zone, e.g. us-central1-a."),
  instance: z
    .string()
    .regex(INSTANCE)
    .describe("The instance's name or numeric id, from the finding's resource."),
});

export interface DenyEgressOptions {
  /** The network tag Terraform's deny-all-egress firewall rule targets. */
  tag: string;
}

/**
 * Cuts an instance off from the network's egress by adding the tag a deny-all-egress firewall
 * rule targets (Compute instances.setTags). The tags are written with the fingerprint read just
 * before, so a concurrent change makes the call fail (412) instead of dropping someone's tag.
 */
export function createAddDenyEgressTagTool(tags: InstanceTags, options: DenyEgressOptions): AnyTool {
  return defineTool({
    name: NAME,
    readOnly: false,
    description:
      `Isolate the Compute Engine instance this finding is about by adding the network tag "${options.tag}", which a deny-all-egress firewall rule targets. ` +
      "Acting: runs only after a person approves the exact call. Reversible (remove the tag).",
    input: InputSchema,
    checkTarget(input, ctx) {
      const named = namedInstance(ctx.finding);
      const same =
        named &&
        named.project === input.project &&
        named.zone === input.zone &&
        named.aliases.includes(input.instance);
      if (!same)
        throw new ActionRefusedError(
          NAME,
          `instance ${input.project}/${input.zone}/${input.instance} is not the finding's resource (${named ? `${named.project}/${named.zone}/${named.aliases.join(" or ")}` : "the finding names no Compute instance"})`,
        );
    },
    async preview(input) {
      const current = await tags.get(input);
      if (current.items.includes(options.tag))
        return `Instance ${current.name} already has tag ${options.tag}; nothing would change.`;
      const after = [...current.items, options.tag];
      return `Would set the tags of instance ${current.name} (${input.project}/${input.zone}) from [${current.items.join(", ")}] to [${after.join(", ")}] (fingerprint ${current.fingerprint}); the deny-all-egress firewall rule then applies to it.`;
    },
    async run(input) {
      const current = await tags.get(input);
      if (current.items.includes(options.tag))
        return {
          ok: true,
          summary: `Instance ${current.name} already had tag ${options.tag}; nothing changed.`,
          data: { ...input, tag: options.tag, changed: false, tags: current.items },
        };
      const after = [...current.items, options.tag];
      const operation = await tags.set(input, { items: after, fingerprint: current.fingerprint });
      return {
        ok: true,
        summary: `Added tag ${options.tag} to instance ${current.name} (operation ${operation.operation}: ${operation.status}).`,
        data: { ...input, tag: options.tag, changed: true, before: current.items, tags: after, ...operation },
      };
    },
  });
}

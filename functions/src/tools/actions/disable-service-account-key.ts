import { z } from "zod";
import { KEY_NAME } from "../../domain/response-actions.js";
import type { ServiceAccountKeys } from "../../ports/response-actions.js";
import { type AnyTool, defineTool } from "../port.js";
import { ActionRefusedError } from "./errors.js";
import { namedKeys } from "./targets.js";

const NAME = "disable_service_account_key";

const InputSchema = z.object({
  keyName: z
    .string()
    .regex(KEY_NAME, "projects/<project>/serviceAccounts/<email>/keys/<key id>")
    .describe("The key the finding names, as projects/<project>/serviceAccounts/<email>/keys/<key id>."),
});

/**
 * Disables one service-account key (IAM keys.disable): calls signed with it fail from then on,
 * and the key can be enabled again, unlike a deletion. Only a key the finding names.
 */
export function createDisableServiceAccountKeyTool(keys: ServiceAccountKeys): AnyTool {
  return defineTool({
    name: NAME,
    readOnly: false,
    description:
      "Disable the service-account key this finding names (it authenticated the reported call, or it is the finding's resource). " +
      "Acting: runs only after a person approves the exact call. Reversible (the key can be re-enabled).",
    input: InputSchema,
    checkTarget(input, ctx) {
      const named = namedKeys(ctx.finding);
      if (!named.includes(input.keyName))
        throw new ActionRefusedError(
          NAME,
          `key ${input.keyName} is not named by the finding (it names ${named.length > 0 ? named.join(", ") : "no service-account key"})`,
        );
    },
    async preview(input) {
      const key = await keys.get(input.keyName);
      if (key.disabled) return `Key ${key.name} is already disabled; nothing would change.`;
      return `Would disable key ${key.name} (${key.keyType ?? "key"}, currently enabled${key.validBeforeTime ? `, valid until ${key.validBeforeTime}` : ""}): requests signed with it fail from then on; it can be re-enabled.`;
    },
    async run(input) {
      const before = await keys.get(input.keyName);
      if (before.disabled)
        return {
          ok: true,
          summary: `Key ${input.keyName} was already disabled; nothing changed.`,
          data: { keyName: input.keyName, changed: false, disabled: true },
        };
      await keys.disable(input.keyName);
      return {
        ok: true,
        summary: `Disabled service-account key ${input.keyName}.`,
        data: { keyName: input.keyName, changed: true, disabled: true },
      };
    },
  });
}

import { z } from "zod";
import { type AnyTool, defineTool } from "../../../functions/src/tools/port.js";

/**
 * An acting tool double that counts what it did: `runs` grows only when the tool really
 * acted, `previews` when the registry asked it for a dry run.
 */
export function countingActingTool(name = "disable_service_account_key"): {
  tool: AnyTool;
  runs: unknown[];
  previews: unknown[];
} {
  const runs: unknown[] = [];
  const previews: unknown[] = [];
  const tool = defineTool({
    name,
    readOnly: false,
    description: "Disables a service-account key (test double).",
    input: z.object({ project: z.string().min(1), keyId: z.string().min(1).optional() }),
    async preview(input) {
      previews.push(input);
      return `would disable key ${input.keyId ?? "(none named)"} in ${input.project}`;
    },
    async run(input) {
      runs.push(input);
      return { ok: true, summary: `disabled key ${input.keyId ?? "?"}`, data: { disabled: true } };
    },
  });
  return { tool, runs, previews };
}

export function readOnlyEcho(): AnyTool {
  return defineTool({
    name: "echo_read",
    readOnly: true,
    description: "Returns its input.",
    input: z.object({ text: z.string() }),
    async run(input) {
      return { ok: true, summary: input.text, data: { text: input.text } };
    },
  });
}

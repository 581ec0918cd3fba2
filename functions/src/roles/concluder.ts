import { z } from "zod";
import { failInvestigation, runConcluder } from "../app/concluder.js";
import { VerdictSchema } from "../domain/conclusion.js";
import { InvestigationStatusSchema } from "../domain/investigation.js";
import { workflowRoleDefinition } from "./role.js";
import { InvestigationRefSchema } from "./workflow-requests.js";

/**
 * Writes the verdict (app/concluder.ts): `conclude` when the evidence is in, `needs_human`
 * when a budget ran out, `fail` when the workflow itself failed.
 */
export const concluder = workflowRoleDefinition({
  name: "concluder",
  needs: { tools: true, chat: false },
  request: InvestigationRefSchema.extend({
    mode: z.enum(["conclude", "needs_human", "fail"]),
    reason: z.string().max(2_000).default(""),
  }),
  response: z.object({
    investigationId: z.string(),
    status: InvestigationStatusSchema,
    verdict: VerdictSchema.optional(),
    confidence: z.number().min(0).max(1).optional(),
  }),
  run: async (input, deps) => {
    const investigation =
      input.mode === "fail"
        ? await failInvestigation(input.investigationId, input.reason || "the workflow failed", deps)
        : await runConcluder(input.investigationId, input.mode, input.reason, deps);
    return {
      investigationId: investigation.id,
      status: investigation.status,
      ...(investigation.conclusion
        ? { verdict: investigation.conclusion.verdict, confidence: investigation.conclusion.confidence }
        : {}),
    };
  },
});

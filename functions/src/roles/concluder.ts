import { z } from "zod";
import { VerdictSchema } from "../domain/conclusion.js";
import { InvestigationStatusSchema } from "../domain/investigation.js";
import { InvestigationRefSchema, workflowRole } from "./role.js";

/**
 * Writes the verdict (app/concluder.ts): `conclude` when the evidence is in, `needs_human`
 * when a budget ran out, `fail` when the workflow itself failed.
 */
export const concluder = workflowRole({
  name: "concluder",
  urlEnv: "FERRET_CONCLUDER_URL",
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
  load: () => import("../app/concluder.js"),
  run: async ({ failInvestigation, runConcluder }, input, deps) => {
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

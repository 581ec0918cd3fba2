import type { z } from "zod";
import { failInvestigation, runConcluder } from "../app/concluder.js";
import type { ConcluderRequestSchema } from "./http-requests.js";
import type { Operation } from "./workflow-call.js";

export const concluderOperation: Operation<z.infer<typeof ConcluderRequestSchema>> = async (input, deps) => {
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
};

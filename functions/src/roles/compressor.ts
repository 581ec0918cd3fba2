import { z } from "zod";
import { StepRequestSchema, workflowRole } from "./role.js";

/**
 * Called by the workflow after a step answered context_pressure, before it runs the step
 * again: summarizes the step's saved history (app/compressor.ts).
 */
export const compressor = workflowRole({
  name: "compressor",
  urlEnv: "FERRET_COMPRESSOR_URL",
  // A model, no tools.
  needs: { tools: false, chat: false },
  request: StepRequestSchema,
  response: z.object({
    stepId: z.string(),
    compressed: z.boolean(),
    compressions: z.number().int().min(0),
    /** Why nothing was compressed. */
    reason: z.string().optional(),
    bytesBefore: z.number().optional(),
    bytesAfter: z.number().optional(),
    iocs: z.number().optional(),
    appendedIocs: z.number().optional(),
    summarizedBy: z.enum(["model", "rules"]).optional(),
  }),
  load: () => import("../app/compressor.js"),
  run: async ({ runCompressor }, input, deps) => runCompressor(input.investigationId, input.stepId, deps),
});

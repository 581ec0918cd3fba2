import { z } from "zod";
import { runCompressor } from "../app/compressor.js";
import { workflowRoleDefinition } from "./role.js";
import { StepRequestSchema } from "./workflow-requests.js";

/**
 * Called by the workflow after a step answered context_pressure, before it runs the step
 * again: summarizes the step's saved history (app/compressor.ts).
 */
export const compressor = workflowRoleDefinition({
  name: "compressor",
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
  run: async (input, deps) => runCompressor(input.investigationId, input.stepId, deps),
});

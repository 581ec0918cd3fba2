import type { z } from "zod";
import { runCompressor } from "../app/compressor.js";
import type { StepRequestSchema } from "./http-requests.js";
import type { Operation } from "./workflow-call.js";

/** Called by the workflow after a step answered context_pressure, before it runs the step again. */
export const compressorOperation: Operation<z.infer<typeof StepRequestSchema>> = async (input, deps) => {
  const outcome = await runCompressor(input.investigationId, input.stepId, deps);
  return { ...outcome };
};

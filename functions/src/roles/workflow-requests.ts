import { z } from "zod";
import type { InvestigationRef } from "./role.js";

/** What every request from the workflow carries. */
export const InvestigationRefSchema = z.object({
  investigationId: z.string().regex(/^inv-[a-f0-9]{24}$/),
}) satisfies z.ZodType<InvestigationRef>;

/** A request about one step of the plan (stepExecutor, compressor). */
export const StepRequestSchema = InvestigationRefSchema.extend({ stepId: z.string().min(1).max(40) });

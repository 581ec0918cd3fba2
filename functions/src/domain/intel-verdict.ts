import { z } from "zod";
import { IocTypeSchema } from "./ioc.js";

export const IntelVerdictSchema = z.enum(["malicious", "suspicious", "benign", "unknown"]);
export type IntelVerdict = z.infer<typeof IntelVerdictSchema>;

/**
 * A threat-intel verdict on one indicator, as a tool recorded it from the provider's data.
 * Written by code, never by the model, so later checks can trust it more than the model's
 * reading of the same evidence.
 */
export const IndicatorVerdictSchema = z.object({
  type: IocTypeSchema,
  value: z.string().min(1).max(2_048),
  verdict: IntelVerdictSchema,
  sources: z.array(z.string().max(200)).max(10),
});
export type IndicatorVerdict = z.infer<typeof IndicatorVerdictSchema>;

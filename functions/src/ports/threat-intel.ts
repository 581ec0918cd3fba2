import { z } from "zod";
import { type IntelVerdict, IntelVerdictSchema } from "../domain/intel-verdict.js";
import { IocTypeSchema } from "../domain/ioc.js";

export { type IntelVerdict, IntelVerdictSchema };

export const IntelReportSchema = z.object({
  indicator: z.object({ type: IocTypeSchema, value: z.string() }),
  verdict: IntelVerdictSchema,
  /** Feeds or providers that said something about the indicator. */
  sources: z.array(z.string()),
  tags: z.array(z.string()),
  firstSeen: z.string().optional(),
  lastSeen: z.string().optional(),
  /** Provider text; attacker-influenced, so it is quoted as data, never obeyed. */
  description: z.string().max(2_000).optional(),
  /** e.g. the malware family or campaign names from related STIX objects. */
  related: z.array(z.string()).max(20).default([]),
});
export type IntelReport = z.infer<typeof IntelReportSchema>;

export interface LookupOptions {
  /** The calling step's deadline: a provider over the network aborts its request with it. */
  signal?: AbortSignal;
}

export interface ThreatIntel {
  readonly name: string;
  lookup(
    indicator: { type: z.infer<typeof IocTypeSchema>; value: string },
    options?: LookupOptions,
  ): Promise<IntelReport>;
}

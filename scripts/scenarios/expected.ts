import { z } from "zod";
import { VerdictSchema } from "../../functions/src/domain/conclusion.js";
import { IocTypeSchema } from "../../functions/src/domain/ioc.js";

/**
 * expected.json: what an investigation of the scenario must reach, as data an eval can
 * check mechanically. Evidence items match when any of their `anyOf` strings appears
 * (case-insensitively) in the step facts, summaries or the conclusion.
 */
export const EvidenceSchema = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/),
  description: z.string().min(1),
  anyOf: z.array(z.string().min(1)).min(1),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

export const ExpectedSchema = z.object({
  scenario: z.string(),
  category: z.string(),
  verdict: VerdictSchema,
  /** Verdicts an eval accepts; the first is `verdict`. */
  acceptableVerdicts: z.array(VerdictSchema).min(1),
  requiredIocs: z.array(z.object({ type: IocTypeSchema, value: z.string(), why: z.string() })),
  requiredEvidence: z.array(EvidenceSchema).min(1),
  optionalEvidence: z.array(EvidenceSchema).default([]),
  /** MITRE ATT&CK technique ids a good conclusion maps to. */
  mitreTechniques: z.array(z.string().regex(/^T\d{4}(\.\d{3})?$/)),
  /** Runbooks that surface the evidence, so a failing eval says where to look. */
  runbooks: z.array(z.string()),
  story: z.string(),
});
export type Expected = z.infer<typeof ExpectedSchema>;

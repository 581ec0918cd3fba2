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

/**
 * A runbook call that surfaces evidence, with parameters taken from the finding (or from
 * an earlier probe's answer) and the window anchored on eventTime. The scenario tests run
 * every probe on DuckDB, so "the evidence is findable" is checked, not assumed.
 */
export const ProbeSchema = z.object({
  runbook: z.string(),
  params: z.record(z.string(), z.string()),
  window: z.object({ hoursBefore: z.number().positive(), hoursAfter: z.number().positive() }),
  /** Strings that must occur in the result rows. */
  expect: z.array(z.string().min(1)),
  /** Strings that must not occur in them (e.g. an accepted login from the attacker). */
  absent: z.array(z.string().min(1)).default([]),
  /** Whether the probe returns rows at all; "none" is evidence too (no connection to a sinkhole). */
  rows: z.enum(["some", "none"]).default("some"),
  /**
   * A wrong-identifier trap: the probe passes a thing of another kind where the runbook wants
   * this one (a cluster or a project number as a VM name) and shows it finds nothing. It
   * documents a mistake a plan must not make, so it is never decisive evidence to ask for
   * (the bench's decisive count leaves it out).
   */
  trap: z.literal(true).optional(),
  why: z.string().min(1),
});
export type Probe = z.input<typeof ProbeSchema>;

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
  /** How the evidence is reached with the runbooks, so a failing eval says where to look. */
  probes: z.array(ProbeSchema).min(1),
  story: z.string(),
});
export type Expected = z.input<typeof ExpectedSchema>;

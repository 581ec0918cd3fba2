import { z } from "zod";
import { ApprovalOutcomeSchema, MAX_APPROVALS_PER_INVESTIGATION } from "./approval-record.js";
import { SeveritySchema } from "./finding/finding.js";
import { IocSchema } from "./ioc.js";
import { ActionLinkSchema } from "./response-actions.js";

export const VerdictSchema = z.enum(["true_positive", "false_positive", "benign", "inconclusive"]);
export type Verdict = z.infer<typeof VerdictSchema>;

/** The concluder model's answer. */
export const ConclusionDraftSchema = z.object({
  verdict: VerdictSchema,
  confidence: z.number().min(0).max(1),
  severity: SeveritySchema,
  summary: z.string().min(1).max(3_000),
  /**
   * Why, in one sentence of words: the decisive evidence and how it settles the verdict. The
   * verdict card leads with it (issue 29); optional so earlier conclusions still read.
   */
  why: z.string().min(1).max(300).optional(),
  /** Why `severity` differs from the finding's SCC severity; absent when it does not. */
  severityReason: z.string().min(1).max(300).optional(),
  mitre: z
    .array(
      z.object({
        tactic: z.string().min(1).max(100),
        techniqueId: z.string().regex(/^T\d{4}(\.\d{3})?$/),
        techniqueName: z.string().max(200).optional(),
      }),
    )
    .max(10),
  keyFindings: z
    .array(
      z.object({
        finding: z.string().min(1).max(500),
        evidence: z
          .array(
            z.object({
              stepId: z.string().max(40).optional(),
              source: z.string().min(1).max(100),
              detail: z.string().min(1).max(500),
            }),
          )
          .min(1)
          .max(5),
      }),
    )
    .max(10),
  iocs: z.array(IocSchema).max(50),
  recommendedActions: z
    .array(
      z.object({
        action: z.string().min(1).max(500),
        priority: z.enum(["immediate", "soon", "later"]),
        /**
         * The built-in response action that carries this recommendation out, with its exact
         * arguments; kept only when the plan offered the tool and the finding names the target
         * (tools/actions/links.ts), so a person can approve it as shown.
         */
        link: ActionLinkSchema.optional(),
      }),
    )
    .max(10),
  openQuestions: z.array(z.string().min(1).max(500)).max(10),
});
export type ConclusionDraft = z.infer<typeof ConclusionDraftSchema>;

export const ConclusionSchema = ConclusionDraftSchema.extend({
  /** Who wrote it; `offline` means no LLM produced this text. */
  producedBy: z.object({ model: z.string(), offline: z.boolean(), note: z.string().optional() }),
  createdAt: z.iso.datetime(),
  /** Who approved (or denied) which acting call, and what it did; set in code, never by a model. */
  approvals: z.array(ApprovalOutcomeSchema).max(MAX_APPROVALS_PER_INVESTIGATION).optional(),
});
export type Conclusion = z.infer<typeof ConclusionSchema>;

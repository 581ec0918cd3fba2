import type { Finding } from "../domain/finding.js";
import type { TableCoverage } from "../domain/log-coverage.js";
import type { Plan, Step } from "../domain/plan.js";
import type { Reflection } from "../domain/reflection.js";
import type { StepResult } from "../domain/results.js";
import type { ToolDeclaration } from "../model/port.js";
import type { ResultSummary } from "./result-summary.js";

/**
 * The structured facts each role renders into its prompt. They travel with the request
 * (GenerateRequest.context) so the offline playbook model reasons over the same facts an
 * LLM reads, without parsing prose. LLM adapters ignore them.
 */
export interface PlannerContext {
  purpose: "planner";
  finding: Finding;
  tools: string[];
  /** The tools' parameter schemas, so a planner can fix a step's calls in advance. */
  declarations?: ToolDeclaration[];
  tables: string[];
  /** Each log table's time span, when it could be read before planning. */
  coverage?: TableCoverage[];
  maxSteps: number;
  related: RelatedInvestigation[];
  /** Verdicts analysts disputed on earlier findings of this category (their reasons are untrusted text). */
  lessons?: AnalystLesson[];
  /** Why the previous attempt was rejected, on the re-plan attempt. */
  problems: string[];
}

export interface RelatedInvestigation {
  id: string;
  category: string;
  resource: string;
  verdict?: string;
  createdAt: string;
  sharedBy: string;
}

export interface AnalystLesson {
  investigationId: string;
  category: string;
  resource: string;
  ferretVerdict: string;
  analystVerdict: string;
  reason: string;
  disputedAt: string;
}

export interface StepExecutorContext {
  purpose: "executor";
  finding: Finding;
  objective: string;
  step: Step;
  priorResults: ResultSummary[];
  /** 1-based round of this step's tool loop. */
  iteration: number;
  maxIterations: number;
  /** Set when the loop hit its cap and only a final report is wanted. */
  finalReportOnly: boolean;
}

export interface ReflectorContext {
  purpose: "reflector";
  finding: Finding;
  plan: Plan;
  results: StepResult[];
  justFinished: string[];
  tools: string[];
  maxSteps: number;
  revisionsLeft: number;
}

export interface ConcluderContext {
  purpose: "concluder";
  finding: Finding;
  plan: Plan;
  results: StepResult[];
  reflections: Reflection[];
  mode: "conclude" | "needs_human";
  reason: string;
}

/** The log-analysis sub-agent's facts: the main agent's question and the session it runs in. */
export interface LogAnalystContext {
  purpose: "log_analyst";
  finding: Finding;
  /** The main agent's natural-language question, and its optional focus hint. */
  request: string;
  focus?: string;
  /** The window queries default to: the one given with the request, else one around eventTime. */
  window: { start: string; end: string };
  windowSource: "request" | "default";
  /** Log tables and runbook names the session's tools can read. */
  tables: string[];
  runbooks: string[];
  /** Memories put into the prompt, with the ids the introspector scores. */
  memories: { id: string; claim: string }[];
  /** 1-based round of the session's tool loop. */
  iteration: number;
  maxIterations: number;
  /** Set when only the final answer is wanted (cap reached, or a format repair). */
  finalAnswerOnly: boolean;
}

export type AgentContext =
  | PlannerContext
  | StepExecutorContext
  | ReflectorContext
  | ConcluderContext
  | LogAnalystContext;

export function isContext<P extends AgentContext["purpose"]>(
  value: unknown,
  purpose: P,
): value is Extract<AgentContext, { purpose: P }> {
  return typeof value === "object" && value !== null && (value as { purpose?: unknown }).purpose === purpose;
}

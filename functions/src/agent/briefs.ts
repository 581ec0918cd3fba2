import type { Finding } from "../domain/finding/finding.js";
import type { Ioc } from "../domain/ioc.js";
import type { LogAnalystSession } from "../domain/log-analyst-session.js";
import type { TableCoverage } from "../domain/log-coverage.js";
import type { Plan, Step } from "../domain/plan.js";
import type { Reflection } from "../domain/reflection.js";
import type { StepResult } from "../domain/results.js";
import type { EvidenceItem } from "../domain/thread-question.js";
import type { MemoryFact } from "../memory/fact.js";
import type { RecalledMemory } from "../memory/memory.js";
import type { GenerateRequest, Message, ToolDeclaration } from "../model/port.js";
import type { RenderedPrompt } from "../prompts/render.js";
import type { ResultSummary } from "./result-summary.js";

/**
 * A brief is what one role is asked, as one typed object: the role's prompt is rendered from
 * it and nothing else (each role's `…Prompt(brief)` function), and it travels with the request
 * (GenerateRequest.brief) so an adapter that reads no prose, the rule model, answers from the
 * same facts. The tool-calling roles' briefs also say where their loop stands (the round, and
 * whether only the answer is wanted): that part is not rendered.
 * docs/decisions/0042-briefs-and-the-rule-model.md says why one object serves both.
 */
export type Brief =
  | PlannerBrief
  | StepExecutorBrief
  | ReflectorBrief
  | ConcluderBrief
  | LogAnalystBrief
  | CompressorBrief
  | IntrospectorBrief
  | ThreadAnswerBrief;

/**
 * A one-turn role's request: the brief, and its rendering by the role's prompt function as the
 * system text and the only message, so the text cannot be anything but the brief's rendering.
 */
export function briefRequest<B extends Brief>(
  brief: B,
  render: (brief: B) => RenderedPrompt,
  investigationId?: string,
): GenerateRequest {
  const prompt = render(brief);
  return {
    brief,
    system: prompt.system,
    messages: [{ role: "user", text: prompt.user }],
    ...(investigationId ? { investigationId } : {}),
  };
}

/** The roles that ask a model, one name each (config/model-settings.ts keys its settings by them). */
export type BriefRole = Brief["role"];

export interface NamedEntry {
  name: string;
  description: string;
}

export interface PlannerBrief {
  role: "planner";
  finding: Finding;
  tools: NamedEntry[];
  /** The tools' parameter schemas, so a planner can fix a step's calls in advance. */
  declarations?: ToolDeclaration[];
  tables: NamedEntry[];
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

export interface StepExecutorBrief {
  role: "executor";
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

export interface ReflectorBrief {
  role: "reflector";
  finding: Finding;
  plan: Plan;
  results: StepResult[];
  justFinished: string[];
  tools: string[];
  /** Of those, the tools that act; a step using them waits for a person's approval. */
  actingTools: string[];
  /** The tools' parameter schemas, so a step added with every value known can carry its calls. */
  declarations?: ToolDeclaration[];
  maxSteps: number;
  revisionsLeft: number;
}

export interface ConcluderBrief {
  role: "concluder";
  finding: Finding;
  plan: Plan;
  results: StepResult[];
  reflections: Reflection[];
  mode: "conclude" | "needs_human";
  reason: string;
}

/** The log-analysis sub-agent's facts: the main agent's question and the session it runs in. */
export interface LogAnalystBrief {
  role: "log_analyst";
  finding: Finding;
  /** The main agent's natural-language question, and its optional focus hint. */
  request: string;
  focus?: string;
  /** The window queries default to: the one given with the request, else one around eventTime. */
  window: { start: string; end: string };
  windowSource: "request" | "default";
  /** The SQL dialect of the warehouse the session queries. */
  dialect: string;
  /** Log tables the session's tools can read, with what each holds. */
  tables: NamedEntry[];
  /** Runbooks the session's tools can run: name, parameter names (comma-separated), description. */
  runbooks: { name: string; params: string; description: string }[];
  /** Memories put into the prompt, with the ids the introspector scores. */
  memories: { id: string; fact: MemoryFact }[];
  /** 1-based round of the session's tool loop. */
  iteration: number;
  maxIterations: number;
  /** Set when only the final answer is wanted (cap reached, or a format repair). */
  finalAnswerOnly: boolean;
}

/** The part of a step's history to summarize, and the IOCs the summary must keep. */
export interface CompressorBrief {
  role: "compressor";
  messages: Message[];
  iocs: Ioc[];
  maxWords: number;
}

/** One log-analysis session to learn from, and the memories it was shown. */
export interface IntrospectorBrief {
  role: "introspector";
  session: LogAnalystSession;
  /** The recalled memories that still exist, with their facts. */
  recalled: RecalledMemory[];
  maxFacts: number;
}

/** An analyst's question in a Slack thread and the evidence an answer may cite. */
export interface ThreadAnswerBrief {
  role: "thread_answer";
  question: string;
  investigationId: string;
  status: string;
  /** Stored evidence, then the results of tools called for this answer (`asked:<n>`). */
  evidence: EvidenceItem[];
  /** Tools offered for this answer (allowed by configuration and by slack.questionTools). */
  tools: string[];
  /** Calls this answer may make in all; 0 when no tool is offered. */
  maxToolCalls: number;
  toolCallsLeft: number;
  /** Set when only the final JSON answer is wanted. */
  finalAnswerOnly: boolean;
}

import type { Approval } from "../domain/approval.js";
import type { Finding } from "../domain/finding/finding.js";
import type { Plan, Step } from "../domain/plan.js";
import type { StepResult, ToolCall } from "../domain/results.js";
import type { Model } from "../model/port.js";
import type { Logger } from "../platform/logger.js";
import type { ScanBudget } from "../tools/scan-budget.js";
import type { ToolBox } from "../tools/toolbox.js";
import type { StepJournal } from "./step-journal.js";

/** What one step's run is given: the step executor, its planned calls and its tools read it. */
export interface StepExecutorInput {
  investigationId: string;
  finding: Finding;
  plan: Plan;
  step: Step;
  priorResults: readonly StepResult[];
  model: Model;
  toolbox: ToolBox;
  maxIterations: number;
  logger: Logger;
  now: () => Date;
  onToolCall?: (call: ToolCall) => void;
  /**
   * Tokens this step may spend (its share of the investigation's budget). Once a round
   * reaches it, the step stops without another model call and reports what the tools found.
   */
  tokenAllowance?: number;
  /**
   * Why the plan cancelled this step, if it did; asked before every model round, so a step
   * a reflection made moot while it ran stops instead of paying for more rounds.
   */
  cancelled?: () => Promise<string | undefined>;
  /**
   * Durable history: the loop resumes from it, saves every tool round to it, and stops
   * (throwing what `pressure` returns) when the context is full or nearly so.
   */
  journal?: StepJournal;
  /** People's decisions on this investigation's acting calls; the tool layer checks them. */
  approvals?: readonly Approval[];
  /**
   * The step's deadline. Once it fires the loop makes no further model or tool call, and the
   * tools it started stop at their next boundary (they get it as ToolContext.signal).
   */
  signal?: AbortSignal;
  /**
   * Tool calls run from one model turn; the rest are answered with a refusal the model can
   * read, so one turn cannot fan out into unbounded work (each log_analysis call is a whole
   * sub-agent session). Default: no cap.
   */
  maxToolCallsPerTurn?: number;
  /** The investigation's log-scan budget, handed to the tools. */
  scanBudget?: ScanBudget;
}

import type { z } from "zod";
import type { Approval, ApprovalRequest } from "../domain/approval.js";
import type { Finding } from "../domain/finding/finding.js";
import type { IndicatorVerdict } from "../domain/intel-verdict.js";
import type { Ioc } from "../domain/ioc.js";
import type { JsonObject, JsonValue } from "../domain/json.js";
import type { Usage } from "../domain/results.js";
import type { Logger } from "../platform/logger.js";
import type { ScanBudget } from "./scan-budget.js";

/** What every tool gets besides its arguments. */
export interface ToolContext {
  investigationId: string;
  finding: Finding;
  logger: Logger;
  /**
   * The calling step's deadline. A tool stops at its next boundary (a page, a lookup, a
   * sub-agent round) once it fires, so abandoned work does not keep spending.
   */
  signal?: AbortSignal;
  /**
   * Model tokens (input + output) the tool may spend inside itself: the log-analysis
   * sub-agent's share of the calling step's allowance. Absent means no share was set.
   */
  tokenAllowance?: number;
  /** Bytes the investigation may still scan in the log warehouse; absent means no budget. */
  scanBudget?: ScanBudget;
  /**
   * The plan step and the model's tool-call id this call answers, when a step executor runs it.
   * A sub-agent derives its deterministic session id from them.
   */
  stepId?: string;
  toolCallId?: string;
  /**
   * The investigation fell back to the offline model earlier: a tool that thinks with a
   * model (the log analyst) must use the offline one too (model/choice.ts).
   */
  offlineOnly?: boolean;
  /**
   * People's decisions on acting calls of this investigation. An acting tool runs only when
   * one of them approves exactly this call (see domain/approval.ts); read-only tools ignore them.
   */
  approvals?: readonly Approval[];
}

export interface ToolOutput {
  ok: boolean;
  /** One or two sentences a later step (and a person) can read. */
  summary: string;
  /** Structured result, bounded by the tool (rows are paged, not dumped). */
  data: JsonValue;
  /** IOCs the tool observed in its results. */
  iocs?: Ioc[];
  /** Threat-intel verdicts per indicator, from the provider's data (threat_intel_lookup). */
  verdicts?: IndicatorVerdict[];
  /** Model usage spent inside the tool (a sub-agent), charged to the calling step's budget. */
  usage?: Usage;
  /** Set when an acting call was held for a person's approval instead of running. */
  approvalRequest?: ApprovalRequest;
  /** The approval the call ran under, when it was an acting call. */
  approvedBy?: Approval;
}

export interface Tool<I extends JsonObject = JsonObject> {
  readonly name: string;
  /** Shown to the model; says what the tool answers and what it cannot. */
  readonly description: string;
  readonly input: z.ZodType<I>;
  /**
   * The arguments' JSON Schema as declared to the model, when it does not come from `input`
   * (an MCP server's tool declares its own; `input` then validates against that schema).
   */
  readonly parameters?: JsonObject;
  /**
   * True when the tool only reads. False means it changes something outside ferret, and the
   * tool layer runs it only under a person's approval of the exact call.
   */
  readonly readOnly: boolean;
  /**
   * For an acting tool: throws when this investigation may not make the call at all (its
   * target is not one the finding names). Checked before the call is held or run, so nobody
   * is asked to approve a call that would be refused.
   */
  checkTarget?(input: I, ctx: ToolContext): void;
  /** For an acting tool: what the call would change, computed without changing it (a dry run). */
  preview?(input: I, ctx: ToolContext): Promise<string>;
  run(input: I, ctx: ToolContext): Promise<ToolOutput>;
}

/** Type-erased tool for registries; defineTool keeps the input type honest. */
export type AnyTool = Tool<JsonObject>;

export function defineTool<I extends JsonObject>(tool: Tool<I>): AnyTool {
  return tool as unknown as AnyTool;
}

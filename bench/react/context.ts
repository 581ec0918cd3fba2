import type { Finding } from "../../functions/src/domain/finding.js";
import type { Ioc } from "../../functions/src/domain/ioc.js";
import type { ToolCall } from "../../functions/src/domain/results.js";

/**
 * The structured facts of one ReAct turn (GenerateRequest.context), as ferret's roles pass
 * theirs: an LLM reads the rendered prompt and the conversation and ignores this; the
 * offline brain reasons over it. `calls` is what the loop already put into the conversation
 * as tool responses, kept whole (intel verdicts included) the way ferret's step results keep it.
 */
export interface ReactContext {
  purpose: "react";
  finding: Finding;
  tools: string[];
  tables: string[];
  maxSteps: number;
  maxIterationsPerLine: number;
  calls: { call: ToolCall; iocs: Ioc[] }[];
}

export function isReactContext(value: unknown): value is ReactContext {
  return typeof value === "object" && value !== null && (value as { purpose?: unknown }).purpose === "react";
}

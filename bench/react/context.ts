import type { Finding } from "../../functions/src/domain/finding/finding.js";
import type { Ioc } from "../../functions/src/domain/ioc.js";
import type { ToolCall } from "../../functions/src/domain/results.js";

/**
 * The structured facts of one ReAct turn, handed by the loop to the offline brain that drives
 * it (ReactInput.onTurn): an LLM reads only the rendered prompt and the conversation. The
 * model port carries no rule-only facts, and this loop is the bench's, not one of ferret's
 * roles, so it has no brief of its own. `calls` is what the loop already put into the conversation
 * as tool responses, kept whole (intel verdicts included) the way ferret's step results keep it.
 */
export interface ReactContext {
  finding: Finding;
  tools: string[];
  tables: string[];
  maxSteps: number;
  maxIterationsPerLine: number;
  calls: { call: ToolCall; iocs: Ioc[] }[];
}
